/**
 * The upload sweep: removes what uploads left behind and nobody finalized — intents past
 * their expiry and grace period with their objects (and a multipart upload's parts), objects under the service's key
 * prefixes that no record or pending intent accounts for, and partial uploads the store
 * kept. Safe to run on several instances at once.
 *
 * @since 0.1.0
 */
import { Context, DateTime, Duration, Effect, Layer, Schedule } from "effect"
import { MediaRepo } from "./MediaRepo.ts"
import { multipartValidityHours } from "./Multipart.ts"
import { ObjectStore, type StorageError } from "./ObjectStore.ts"
import type { PersistenceError } from "../shared/PersistenceError.ts"
import { defaultGracePeriod, keyPrefixes } from "./Upload.ts"
import { UploadRepo } from "./UploadRepo.ts"

/** What one sweep did. */
export interface SweepReport {
  /** Abandoned intents removed, with their objects. */
  readonly abandoned: number
  /** Abandoned intents whose file turned out to be recorded (finalize had not marked them). */
  readonly adopted: number
  /** Objects under the service's prefixes with no record and no pending intent, deleted. */
  readonly orphans: number
  /** What uploads that never completed left in the store (temporary files), removed. */
  readonly incomplete: number
}

/** Options of {@link UploadSweep.layerNoDeps}. */
export interface UploadSweepOptions {
  /** The grace period `Uploads` was given (finalize works until it ends). Default {@link defaultGracePeriod}. */
  readonly gracePeriod?: Duration.Duration | undefined
}

/**
 * How much longer than the grace period the sweep waits before it treats an upload as
 * abandoned. Finalize refuses at the end of the grace period by its own clock; the margin
 * covers clock skew between instances and a finalize still running at that moment, so
 * the sweep never deletes an object a finalize is about to record.
 */
export const sweepMargin: Duration.Duration = Duration.minutes(5)

export class UploadSweep extends Context.Service<UploadSweep, {
  /** One pass of the sweep. */
  readonly run: Effect.Effect<SweepReport, PersistenceError | StorageError>
}>()("@coursekit/core/UploadSweep") {
  static readonly layerNoDeps = (
    options: UploadSweepOptions = {}
  ): Layer.Layer<UploadSweep, never, UploadRepo | MediaRepo | ObjectStore> =>
    Layer.effect(
      UploadSweep,
      Effect.gen(function*() {
        const intents = yield* UploadRepo
        const media = yield* MediaRepo
        const store = yield* ObjectStore
        const grace = options.gracePeriod ?? defaultGracePeriod

      const run = Effect.gen(function*() {
        const now = yield* DateTime.now
        const cutoff = DateTime.subtractDuration(now, Duration.sum(grace, sweepMargin))
        let abandoned = 0
        let adopted = 0
        let orphans = 0
        // Intents never finalized, expired more than the grace period (and the margin) ago.
        while (true) {
          const batch = yield* intents.listAbandoned(cutoff, 200)
          if (batch.length === 0) break
          const recorded = yield* media.existing(batch.map((intent) => intent.key))
          for (const intent of batch) {
            if (recorded.has(intent.key)) {
              yield* intents.markFinalized(intent.key)
              adopted++
            } else {
              // A multipart upload's parts go with it.
              if (intent.store_upload_id !== null) yield* store.abortMultipart(intent.key, intent.store_upload_id)
              yield* store.delete(intent.key)
              yield* intents.delete(intent.key)
              abandoned++
            }
          }
          if (batch.length < 200) break
        }
        // Objects under the service's prefixes that nothing accounts for: no record and no
        // intent that may still be finalized. Younger objects wait for a later pass.
        for (const prefix of keyPrefixes) {
          let after: string | undefined
          do {
            const page = yield* store.list(prefix, { after, limit: 500 })
            after = page.next
            const old = page.objects.filter((object) => DateTime.isLessThan(object.lastModified, cutoff))
            if (old.length === 0) continue
            const keys = old.map((object) => object.key)
            const recorded = yield* media.existing(keys)
            const pending = new Set(
              (yield* intents.findMany(keys))
                .filter((intent) => intent.finalized_at === null && !DateTime.isLessThan(intent.expires_at, cutoff))
                .map((intent) => intent.key)
            )
            for (const key of keys) {
              if (recorded.has(key) || pending.has(key)) continue
              yield* store.delete(key)
              yield* intents.delete(key)
              orphans++
            }
          } while (after !== undefined)
        }
        // Partial uploads nothing has written to for as long as an upload stays open and the
        // grace period: a multipart upload may rest for hours between parts and still resume
        // until its 24 hours end (those with an intent were aborted above, on time).
        const incomplete = yield* store.removeIncomplete(DateTime.subtractDuration(cutoff, Duration.hours(multipartValidityHours)))
        const report: SweepReport = { abandoned, adopted, orphans, incomplete }
        return report
      }).pipe(Effect.withSpan("UploadSweep.run"))

        return UploadSweep.of({ run })
      })
    )

  /**
   * Runs the sweep every `interval` for as long as the layer lives; a failed pass is
   * logged and the next one runs on schedule.
   */
  static readonly layerSchedule = (interval: Duration.Duration): Layer.Layer<never, never, UploadSweep> =>
    Layer.effectDiscard(
      Effect.gen(function*() {
        const sweep = yield* UploadSweep
        yield* sweep.run.pipe(
          Effect.tap((report) =>
            report.abandoned + report.adopted + report.orphans + report.incomplete > 0
              ? Effect.logInfo("upload sweep", report)
              : Effect.void
          ),
          Effect.catchCause((cause) => Effect.logWarning("upload sweep failed; the next pass will retry", cause)),
          Effect.repeat(Schedule.spaced(interval)),
          Effect.forkScoped
        )
      })
    )
}
