/**
 * One worker process of {@link WorkerHtmlSanitizer}: its first message carries the
 * allow-list and limits, from which it builds the sanitization pipelines once and says
 * it is ready; then it answers each `{ id, task }` with `{ id, result }` — or
 * `{ id, failure }` for a bug, which the pool reports as a defect. Loads only
 * `@coursekit/core/html-pipelines`, not Effect. It ends when the server does (its
 * channel closes).
 *
 * @since 0.2.0
 */
import { type HtmlAllowList, type HtmlLimits, type HtmlPipelines, type HtmlTask, makeHtmlPipelines } from "@coursekit/core/html-pipelines"

let pipelines: HtmlPipelines | undefined

type Message =
  | { readonly workerData: { readonly allowList: HtmlAllowList; readonly limits: HtmlLimits } }
  | { readonly id: number; readonly task: HtmlTask }

process.on("message", (message: Message) => {
  if ("workerData" in message) {
    pipelines = makeHtmlPipelines(message.workerData.allowList, message.workerData.limits)
    process.send!({ ready: true })
    return
  }
  let reply: unknown
  try {
    reply = { id: message.id, result: pipelines!.run(message.task) }
  } catch (error) {
    reply = { id: message.id, failure: error instanceof Error ? error.stack ?? error.message : String(error) }
  }
  process.send!(reply)
})
process.on("disconnect", () => process.exit(0))
