/**
 * A process that tries to lock the directory given as its argument, prints `acquired` or
 * the error's tag, and holds what it took until its standard input ends: a contender of
 * the race test, which ends it once every contender has answered.
 */
import { Effect } from "effect"
import { DataDirectoryLock } from "../src/index.ts"

const directory = process.argv[2]!
await Effect.runPromise(
  DataDirectoryLock.acquire(directory).pipe(
    Effect.andThen(Effect.sync(() => process.stdout.write("acquired\n"))),
    Effect.andThen(Effect.promise(() => new Promise((ended) => process.stdin.on("end", ended).resume()))),
    Effect.catch((error) => Effect.sync(() => process.stdout.write(`${error._tag}\n`))),
    Effect.scoped
  )
)
