#!/usr/bin/env node
/** The `support-engine` executable (see `main.ts`). */
import { main } from "./main.js"

main(process.argv)
