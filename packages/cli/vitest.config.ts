import { mergeConfig, type UserConfigExport } from "vitest/config"
import shared from "../../vitest.shared.ts"

const config: UserConfigExport = {
  // The tests run the bundled executable (build.mjs), built once before them.
  test: { globalSetup: ["./test/BuildExecutable.ts"] }
}

export default mergeConfig(shared, config)
