/**
 * Sanitizing a model's answer while it streams in. The answer is sanitized in windows
 * (see `HtmlPipelines`' stream round): a round parses the window — the text from the last
 * cut on — and sanitizes its settled top-level nodes (all but the one the parser still
 * adds to); the blocks not handed out yet come back and go out (with a hash of what went
 * out of the window, checked on the other side). A window is cut after a sanitized block
 * where the parser was clean, so the next round starts there and nothing before it is
 * read again. Prose at a window's end is held back (it may yet prove to be a sign-off
 * or, in an answer part with no element, a lead-in), so what was handed out is always a
 * prefix of the sanitized whole answer; `end` sanitizes the whole answer once, checks
 * this, and says if it ever did not hold.
 *
 * Cost: a round runs when a tag has ended and the rounds have read less than 4 KiB plus
 * twice what arrived (a round reads its window), so all rounds together read at most
 * twice the answer and 4 KiB, and with `end`'s one pass a whole answer costs about three
 * passes of its size however it is written — not one pass of the answer so far per round.
 *
 * @since 0.2.0
 */
import { Effect } from "effect"
import { fnv1a, type HtmlTask, type HtmlTaskValue, type StreamStart, type TaskOf } from "./HtmlPipelines.ts"

/** The sanitized blocks of a streaming answer. */
export interface ModelOutputBlocks<E> {
  /** Adds the next piece of the answer; answers the sanitized HTML that is now final, block by block (often none). */
  push(text: string): Effect.Effect<ReadonlyArray<string>, E>
  /**
   * The answer is complete: the blocks not handed out yet, and the whole sanitized answer
   * (what `sanitizeModelOutput` answers). `diverged` says what was handed out is not a
   * prefix of `html`; the pieces must then not be used as the answer.
   */
  end(): Effect.Effect<Ended, E>
}

/** What `end` answers. */
type Ended = { readonly blocks: ReadonlyArray<string>; readonly html: string; readonly diverged: boolean }

/** Runs one pipeline task: in process, or in a worker process. */
export type HtmlTaskRunner<E> = <Op extends HtmlTask["op"]>(task: TaskOf<Op>) => Effect.Effect<HtmlTaskValue[Op], E>

/** What the rounds may read before the answer pays for them: short answers stream at once. */
const initialCredit = 4096

/**
 * Starts one streaming answer, sanitized by `run`, whose HTML may have `maxLength`
 * characters in all (a round past it fails as `run` refuses a long document).
 */
export const modelOutputBlocks = <E>(run: HtmlTaskRunner<E>, maxLength: number): ModelOutputBlocks<E> => {
  let answer = ""
  /** Where the current window starts in `answer`, and the parser's state there. */
  let windowStart = 0
  let start: StreamStart = undefined
  /** Characters the rounds may still read: a start, two for each that arrived, less what rounds read. */
  let credit = initialCredit
  /** What went out of the current window (its length and hash), and of the whole answer. */
  let windowSent = 0
  let windowHash = fnv1a("")
  let sent = ""
  let diverged = false

  return {
    push: (text) =>
      Effect.suspend(() => {
        answer += text
        credit += 2 * text.length
        const window = answer.length - windowStart
        // Nothing settles before a tag ends. The credit keeps the rounds' reading linear:
        // all of them together read at most twice the answer.
        if (diverged || !text.includes(">") || credit < window) return Effect.succeed([])
        credit -= window
        return run({
          op: "streamRound",
          text: answer.slice(windowStart),
          start,
          sent: windowSent,
          sentHash: windowHash,
          room: maxLength - sent.length
        }).pipe(
          Effect.map((round) => {
            if (!round.extends) {
              // Not expected (see above); nothing more is handed out, and `end` reports it.
              diverged = true
              return []
            }
            for (const piece of round.pieces) {
              windowSent += piece.length
              windowHash = fnv1a(piece, windowHash)
              sent += piece
            }
            if (round.cut !== undefined) {
              windowStart += round.cut.offset
              start = round.cut.start
              windowSent = 0
              windowHash = fnv1a("")
            }
            return round.pieces
          })
        )
      }),
    end: () =>
      Effect.suspend(() =>
        run({ op: "modelOutputPieces", html: answer }).pipe(
          Effect.map((all): Ended => {
            // A fragment serializes as its top-level nodes one after the other: the pieces are the whole.
            const html = all.join("")
            if (diverged || !html.startsWith(sent)) return { blocks: [], html, diverged: true }
            const blocks: Array<string> = []
            let offset = 0
            for (const piece of all) {
              const end = offset + piece.length
              if (end > sent.length) blocks.push(offset >= sent.length ? piece : piece.slice(sent.length - offset))
              offset = end
            }
            sent = html
            return { blocks, html, diverged: false }
          })
        )
      )
  }
}
