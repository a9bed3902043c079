/**
 * A process that tries to lock the directory given as its argument, prints `acquired` or
 * the error's tag, and holds what it took for 3 seconds: a contender of the race test.
 */
import { Effect } from "effect"
import { DataDirectoryLock } from "../src/index.ts"

const directory = process.argv[2]!
await Effect.runPromise(
  DataDirectoryLock.acquire(directory).pipe(
    Effect.andThen(Effect.sync(() => process.stdout.write("acquired\n"))),
    Effect.andThen(Effect.sleep("3 seconds")),
    Effect.catch((error) => Effect.sync(() => process.stdout.write(`${error._tag}\n`))),
    Effect.scoped
  )
)
