import { Effect, Layer } from "effect"
import { failureKindOfStatus } from "../../src/index.ts"
import {
  llmProviderSuite,
  LlmProviderHarness,
  type ModelAnswer,
  type ModelScriptControl,
  ScriptedLlmProvider,
  ScriptedStep
} from "../../src/testing/index.ts"

/** The scripted layer's steps for wire-level answers, as an adapter would report them. */
const stepOf = (answer: ModelAnswer): ScriptedStep => {
  switch (answer._tag) {
    case "Text":
      return ScriptedStep.text(answer.text, answer.usage)
    case "Break": {
      const how = answer.how
      return how === "hang" ? ScriptedStep.hangAfter(answer.text)
        : ScriptedStep.breakAfter(
          answer.text,
          how === "reset" ? "network_error" : how === "malformed" ? "bad_response" : failureKindOfStatus(how.status ?? 500)
        )
    }
    case "Status":
      return ScriptedStep.fail(failureKindOfStatus(answer.status), {
        status: answer.status,
        ...(answer.retryAfterSeconds === undefined ? {} : { retryAfterMillis: answer.retryAfterSeconds * 1000 })
      })
    case "Malformed":
      return ScriptedStep.fail("bad_response")
    case "Reset":
      return ScriptedStep.fail("network_error")
    case "Hang":
      return ScriptedStep.hang
  }
}

const scriptedHarness = Layer.effect(
  LlmProviderHarness,
  Effect.gen(function*() {
    const scripted = yield* ScriptedLlmProvider.make({}, [])
    const script: ModelScriptControl = {
      answerWith: (...answers) => Effect.runSync(scripted.push(...answers.map(stepOf))),
      get received() {
        return Effect.runSync(scripted.requests)
      },
      get abandoned() {
        return Effect.runSync(scripted.abandoned)
      }
    }
    return LlmProviderHarness.of({ provider: scripted.service, script })
  })
)

llmProviderSuite("scripted", scriptedHarness)
