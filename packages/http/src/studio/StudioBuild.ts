/**
 * The Studio's build on disk, as its routes read it: `index.html` and the files beside
 * it (Vite's hashed `assets/…`). Every file is looked up through one path guard:
 * the path's segments are plain names (never empty, `.` or `..`, no `/`, `\` or control
 * character), and each one is looked at without following links — a directory on the
 * way, a regular file at the end — so nothing outside the directory is ever read, and
 * a directory is never listed. The build is read as it is at each request: a rebuild
 * while the server runs is served at once.
 *
 * @since 0.1.0
 */
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as NodePath from "@effect/platform-node/NodePath"
import { Context, Effect, FileSystem, Layer, Option, Path, type PlatformError, Ref, type Stream } from "effect"

/** A regular file of the build. */
export interface StudioFile {
  /** Its path on disk. */
  readonly path: string
  readonly size: number
  readonly lastModified: Date
}

/** The build's `index.html`, read. */
export interface StudioIndex extends StudioFile {
  readonly html: string
}

/** Whether `segment` may name a file or directory of the build: the path guard's one rule. */
export const isFileName = (segment: string): boolean =>
  segment !== "" && segment !== "." && segment !== ".." && !/[/\\\u0000-\u001f\u007f]/.test(segment)

const indexName = "index.html"

/** The build in a directory. */
export class StudioBuild extends Context.Service<StudioBuild, {
  /** The directory read. */
  readonly dir: string
  /** `index.html`, or none when the Studio is not built there. */
  readonly index: Effect.Effect<Option.Option<StudioIndex>>
  /** The regular file at `segments` (each {@link isFileName}), or none: nothing there, a directory, a link. */
  file(segments: ReadonlyArray<string>): Effect.Effect<Option.Option<StudioFile>>
  /** The bytes of `file`. */
  read(file: StudioFile): Stream.Stream<Uint8Array, PlatformError.PlatformError>
}>()("@coursekit/http/StudioBuild") {
  /**
   * The build in `dir` (`packages/studio/dist`). When it holds no `index.html` the layer
   * logs a warning once, at start-up; the routes then answer 503 until it is built.
   */
  static readonly layer = (dir: string): Layer.Layer<StudioBuild> =>
    Layer.effect(
      StudioBuild,
      Effect.gen(function*() {
        const fs = yield* FileSystem.FileSystem
        const path = yield* Path.Path
        const root = path.resolve(dir)
        // A failure other than absence (permissions, a failing disk) is the operator's to see: a 500 with its cause logged.
        const infoOf = (file: string) =>
          fs.lstat(file).pipe(
            Effect.map(Option.some),
            Effect.catchIf((error) => error.reason._tag === "NotFound", () => Effect.succeedNone),
            Effect.orDie
          )
        const studioFile = (file: string, info: FileSystem.File.Info): StudioFile => ({
          path: file,
          size: Number(info.size),
          lastModified: Option.getOrElse(info.mtime, () => new Date(0))
        })

        const file = Effect.fn("StudioBuild.file")(function*(segments: ReadonlyArray<string>) {
          if (segments.length === 0 || !segments.every(isFileName)) return Option.none<StudioFile>()
          let current = root
          for (const [index, segment] of segments.entries()) {
            current = path.join(current, segment)
            const info = yield* infoOf(current)
            if (Option.isNone(info)) return Option.none<StudioFile>()
            const last = index === segments.length - 1
            if (info.value.type !== (last ? "File" : "Directory")) return Option.none<StudioFile>()
            if (last) return Option.some(studioFile(current, info.value))
          }
          return Option.none<StudioFile>()
        })

        // index.html is read again only when it changed (a rebuild); its size and time tell.
        const held = yield* Ref.make(Option.none<StudioIndex>())
        const index = Effect.gen(function*() {
          const found = yield* file([indexName])
          if (Option.isNone(found)) return Option.none<StudioIndex>()
          const kept = yield* Ref.get(held)
          if (
            Option.isSome(kept) && kept.value.size === found.value.size &&
            kept.value.lastModified.getTime() === found.value.lastModified.getTime()
          ) return kept
          const html = yield* fs.readFileString(found.value.path).pipe(
            Effect.map(Option.some),
            Effect.catchIf((error) => error.reason._tag === "NotFound", () => Effect.succeedNone),
            Effect.orDie
          )
          const read = Option.map(html, (html) => ({ ...found.value, html }))
          yield* Ref.set(held, read)
          return read
        })

        if (Option.isNone(yield* index)) {
          yield* Effect.logWarning(
            `Coursekit Studio is not built: ${path.join(root, indexName)} is missing, so /studio/ answers 503 until \`npm run build\` builds it.`
          )
        }
        return StudioBuild.of({ dir: root, index, file, read: (file) => fs.stream(file.path) })
      })
    ).pipe(Layer.provide([NodeFileSystem.layer, NodePath.layer]))
}
