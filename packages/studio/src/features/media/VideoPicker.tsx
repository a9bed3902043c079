/**
 * A lesson's video: the player (through the URL the API hands out, signed for a private
 * file) and "Choose video", a dialog that picks a video from the library or uploads one.
 * A paid lesson (not a free preview) is offered private videos only, and uploads privately:
 * the API refuses it a public one (docs/lessons-and-access.md).
 */
import { useState } from "react"
import { Button, Dialog, DialogTrigger, FileTrigger, Heading, Modal } from "react-aria-components"
import { type MediaFile, mediaContentTypes } from "@coursekit/core"
import { studioClient } from "../../app/studioClient.ts"
import { PageButtons, useCursorPages } from "../../shared/CursorPaging.tsx"
import { problemMessage } from "../../shared/problemMessage.ts"
import { useMediaPage } from "./mediaQueries.ts"
import "./media.css"
import { formatBytes } from "./transferRate.ts"
import { UploadProgress } from "./UploadProgress.tsx"

/** The video types the library takes, for the file chooser. */
const videoTypes = mediaContentTypes.filter((type) => type.startsWith("video/"))

interface Props {
  readonly videoUrl: string | null
  readonly isPreview: boolean
  /** Sets the lesson's video (null: none); resolves with the problem's words when it failed. */
  readonly onChoose: (fileKey: string | null) => Promise<string | undefined>
}

const Choices = ({ isPreview, choose }: { readonly isPreview: boolean; readonly choose: (media: MediaFile) => void }) => {
  const pages = useCursorPages()
  // The API lists only what may be chosen, so every page is full of choices.
  const page = useMediaPage(pages.cursor, { kind: "video", visibility: isPreview ? undefined : "private" })
  const offered = page.data?.items ?? []
  return (
    <>
      {page.isError && <p role="alert" className="error">{problemMessage(page.error)}</p>}
      {page.data !== undefined && (offered.length === 0
        ? <p>No {isPreview ? "" : "private "}videos in the library yet.</p>
        : (
          <ul className="video-choices" aria-label="Videos">
            {offered.map((media) => (
              <li key={media.id}>
                <span>{media.name} <span className="upload-state">({media.visibility === "private" ? "Private" : "Public"}, {formatBytes(media.size_bytes)})</span></span>
                <Button aria-label={`Use ${media.name}`} onPress={() => choose(media)}>Use</Button>
              </li>
            ))}
          </ul>
        ))}
      <PageButtons pages={pages} next={page.data?.next} label="Library pages" />
    </>
  )
}

export const VideoPicker = ({ videoUrl, isPreview, onChoose }: Props) => {
  const [busy, setBusy] = useState(false)
  const [progress, setProgress] = useState<number>()
  const [error, setError] = useState<string>()
  const [removeError, setRemoveError] = useState<string>()
  const remove = async () => {
    setBusy(true)
    setRemoveError(await onChoose(null))
    setBusy(false)
  }
  const choose = async (fileKey: string, close: () => void) => {
    setBusy(true)
    setError(undefined)
    const problem = await onChoose(fileKey)
    setBusy(false)
    setError(problem)
    if (problem === undefined) close()
  }
  const upload = async (file: File, close: () => void) => {
    setError(undefined)
    setProgress(0)
    try {
      const media = await studioClient.uploadMedia(file, {
        visibility: isPreview ? "public" : "private",
        onProgress: ({ loaded, total }) => setProgress(total === 0 ? 1 : loaded / total)
      })
      setProgress(undefined)
      await choose(media.file_key, close)
    } catch (failure) {
      setProgress(undefined)
      setError(problemMessage(failure))
    }
  }
  return (
    <div className="lesson-video" role="group" aria-label="Video">
      {videoUrl !== null && <video className="lesson-player" src={videoUrl} controls preload="metadata" aria-label="Lesson video" />}
      <div className="actions">
        <DialogTrigger onOpenChange={(open) => open && setError(undefined)}>
          <Button isDisabled={busy}>Choose video</Button>
          <Modal className="modal wide" isDismissable={progress === undefined}>
            <Dialog>
              {({ close }) => (
                <>
                  <Heading slot="title">Choose video</Heading>
                  <p className="hint">
                    {isPreview
                      ? "A free preview may play any video of the library."
                      : "A paid lesson plays private videos only: they are read through signed links that expire."}
                  </p>
                  <Choices isPreview={isPreview} choose={(media) => void choose(media.file_key, close)} />
                  <FileTrigger acceptedFileTypes={videoTypes} onSelect={(files) => {
                    const file = files?.[0]
                    if (file !== undefined) void upload(file, close)
                  }}>
                    <Button isDisabled={progress !== undefined || busy}>{isPreview ? "Upload a video" : "Upload a private video"}</Button>
                  </FileTrigger>
                  {progress !== undefined && <UploadProgress label="Uploading video" percent={Math.round(progress * 100)} />}
                  {error !== undefined && <p role="alert" className="error">{error}</p>}
                  <div className="actions">
                    <Button onPress={close} isDisabled={progress !== undefined}>Close</Button>
                  </div>
                </>
              )}
            </Dialog>
          </Modal>
        </DialogTrigger>
        {videoUrl !== null && <Button className="react-aria-Button danger" isDisabled={busy} onPress={() => void remove()}>Remove video</Button>}
      </div>
      {removeError !== undefined && <p role="alert" className="error">{removeError}</p>}
    </div>
  )
}
