/**
 * The course's thumbnail: the current image, a file picker ("Thumbnail"), and the
 * upload's progress bar while the file goes straight to storage. The upload is a write of
 * the course (its finalize sets the thumbnail), so it runs in the editor's save lane.
 */
import { useState } from "react"
import { FileTrigger, Button } from "react-aria-components"
import { UploadProgress } from "./UploadProgress.tsx"

interface Props {
  readonly url: string | null
  /** Uploads `file`, telling its progress (0…1); resolves with the problem's words when it failed. */
  readonly onUpload: (file: File, onProgress: (fraction: number) => void) => Promise<string | undefined>
}

export const ThumbnailUpload = ({ url, onUpload }: Props) => {
  const [progress, setProgress] = useState<number>()
  const [error, setError] = useState<string>()
  const upload = async (file: File) => {
    setError(undefined)
    setProgress(0)
    const problem = await onUpload(file, setProgress)
    setProgress(undefined)
    setError(problem)
  }
  return (
    <div className="thumbnail" role="group" aria-label="Thumbnail">
      {url !== null && <img src={url} alt="The course's thumbnail" className="thumbnail-image" />}
      <FileTrigger acceptedFileTypes={["image/jpeg", "image/png", "image/webp", "image/gif"]} onSelect={(files) => {
        const file = files?.[0]
        if (file !== undefined) void upload(file)
      }}>
        <Button isDisabled={progress !== undefined}>{url === null ? "Upload thumbnail" : "Replace thumbnail"}</Button>
      </FileTrigger>
      {progress !== undefined && <UploadProgress label="Uploading thumbnail" percent={Math.round(progress * 100)} />}
      {error !== undefined && <p role="alert" className="error">{error}</p>}
    </div>
  )
}
