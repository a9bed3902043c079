// The types of studio-build-if-stale.mjs (plain JavaScript, run by `npm start` before tsx), for its test.

/** Why the Studio's build under `root` must be made again, or undefined when it is up to date. */
export declare const staleness: (root: string) => string | undefined

/** Builds the Studio under `root` when it is stale and `env` does not turn it off; answers whether it built. */
export declare const buildIfStale: (
  root: string,
  env?: Readonly<Record<string, string | undefined>>,
  say?: (line: string) => void
) => { readonly built: false } | { readonly built: true; readonly status: number; readonly output: string }
