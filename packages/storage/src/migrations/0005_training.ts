import { Effect } from "effect"

// Placeholder: filled in by the issue that owns these tables.
export default Effect.void
