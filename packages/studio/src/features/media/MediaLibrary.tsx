/**
 * "Media": the library as the API pages it (name, type, size, visibility, "Used by": the
 * lessons and course that use the file; "Delete", asked first, with the API's 409 naming
 * the same), and uploads into it: "Upload files" (several at once) or a drop zone,
 * "Private (paid lessons)", one progress bar per file (percent, speed, time left) with
 * "Pause", "Resume" and "Cancel".
 */
import { useState } from "react"
import {
  Button,
  Checkbox,
  Dialog,
  DialogTrigger,
  DropZone,
  FileTrigger,
  Heading,
  Modal,
  Text
} from "react-aria-components"
import type { MediaFile, MediaUses } from "@coursekit/core"
import { hrefOf } from "../../app/route.ts"
import { PageButtons, useCursorPages } from "../../shared/CursorPaging.tsx"
import { problemMessage } from "../../shared/problemMessage.ts"
import "./media.css"
import { useCourseTitle, useDeleteMedia, useLessonTitle, useMediaPage, usesOf } from "./mediaQueries.ts"
import { formatBytes, formatSpeed, formatTimeLeft } from "./transferRate.ts"
import { UploadProgress } from "./UploadProgress.tsx"
import { type Upload, useUploads } from "./useUploads.ts"

/** What the library takes (docs/uploads.md, "Rules"). */
export const mediaTypes = ["video/mp4", "video/webm", "video/quicktime", "image/jpeg", "image/png", "image/webp", "image/gif", "image/avif"]

const quoted = (text: string) => `“${text}”`

const progressText = (upload: Upload) => {
  const percent = upload.total === 0 ? 100 : Math.floor((upload.loaded / upload.total) * 100)
  const parts = [`${percent} %`]
  if (upload.state === "uploading") {
    if (upload.bytesPerSecond !== undefined) parts.push(formatSpeed(upload.bytesPerSecond))
    if (upload.secondsLeft !== undefined) parts.push(formatTimeLeft(upload.secondsLeft))
  }
  return parts.join(" · ")
}

const stateText: Record<Upload["state"], string> = { uploading: "Uploading", paused: "Paused", done: "Uploaded", failed: "Failed" }

const UploadRow = ({ upload, actions }: { readonly upload: Upload; readonly actions: ReturnType<typeof useUploads> }) => (
  <li className="upload" aria-label={upload.name}>
    <UploadProgress
      label={`Uploading ${upload.name}`}
      percent={upload.total === 0 ? 100 : (upload.loaded / upload.total) * 100}
      valueLabel={progressText(upload)}
      title={<>{upload.name} <span className="upload-state">({stateText[upload.state]}{upload.visibility === "private" ? ", private" : ""})</span></>}
    />
    <div className="upload-actions">
      {upload.state === "uploading" && <Button onPress={() => actions.pause(upload.id)}>Pause</Button>}
      {(upload.state === "paused" || upload.state === "failed") && <Button onPress={() => actions.resume(upload.id)}>Resume</Button>}
      {upload.state !== "done" && <Button className="react-aria-Button danger" onPress={() => actions.cancel(upload.id)}>Cancel</Button>}
    </div>
    {upload.error !== undefined && <p role="alert" className="error">{upload.error}</p>}
  </li>
)

/** A lesson that plays a file, by its title and its course's (their ids until read). */
const LessonUse = ({ courseId, lessonId }: { readonly courseId: number; readonly lessonId: number }) => {
  const course = useCourseTitle(courseId).data
  const lesson = useLessonTitle(courseId, lessonId).data
  return (
    <li>
      <a href={hrefOf({ _tag: "lesson", courseId, lessonId })}>
        {lesson == null ? `Lesson ${lessonId}` : quoted(lesson)} in {course === undefined ? `course ${courseId}` : quoted(course)}
      </a>{" "}
      plays it
    </li>
  )
}

const ThumbnailUse = ({ courseId }: { readonly courseId: number }) => {
  const course = useCourseTitle(courseId).data
  return (
    <li>
      <a href={hrefOf({ _tag: "course", id: courseId })}>{course === undefined ? `Course ${courseId}` : quoted(course)}</a> shows it as its thumbnail
    </li>
  )
}

/**
 * What uses a file, each a link to its editor: the library's "Used by" column and the
 * 409 of "Delete" name them alike. "Not used" when nothing does.
 */
const MediaUsesList = ({ uses }: { readonly uses: MediaUses }) =>
  uses.lessons.length === 0 && uses.thumbnail_of === null ? <span>Not used</span> : (
    <ul className="media-uses">
      {uses.lessons.map(({ course_id, lesson_id }) => <LessonUse key={`${course_id}/${lesson_id}`} courseId={course_id} lessonId={lesson_id} />)}
      {uses.thumbnail_of !== null && <ThumbnailUse courseId={uses.thumbnail_of} />}
    </ul>
  )

const DeleteMediaDialog = ({ media }: { readonly media: MediaFile }) => {
  const remove = useDeleteMedia()
  const uses = usesOf(remove.error)
  return (
    <DialogTrigger onOpenChange={(open) => open && remove.reset()}>
      <Button className="react-aria-Button danger">Delete</Button>
      <Modal className="modal" isDismissable>
        <Dialog role="alertdialog">
          {({ close }) => (
            <>
              <Heading slot="title">Delete {quoted(media.name)}?</Heading>
              <p>The file is deleted from storage; links to it stop working. This cannot be undone.</p>
              {remove.isError && (
                <div role="alert" className="error">
                  <p>{uses === undefined ? problemMessage(remove.error) : `${quoted(media.name)} is in use: change these first.`}</p>
                  {uses !== undefined && <MediaUsesList uses={uses} />}
                </div>
              )}
              <div className="actions">
                <Button onPress={close} autoFocus>Cancel</Button>
                <Button
                  className="react-aria-Button danger primary"
                  isDisabled={remove.isPending}
                  onPress={() => remove.mutate(media.file_key, { onSuccess: close })}
                >
                  Delete
                </Button>
              </div>
            </>
          )}
        </Dialog>
      </Modal>
    </DialogTrigger>
  )
}

export const MediaLibrary = () => {
  const uploads = useUploads()
  const [isPrivate, setPrivate] = useState(false)
  const pages = useCursorPages()
  const page = useMediaPage(pages.cursor)
  const start = (files: ReadonlyArray<File>) => {
    if (files.length > 0) uploads.start(files, isPrivate ? "private" : "public")
  }
  return (
    <main className="media">
      <h1>Media</h1>
      <section className="media-upload" aria-label="Upload">
        <DropZone
          className="drop-zone"
          aria-label="Drop files to upload"
          getDropOperation={(types) => (mediaTypes.some((type) => types.has(type)) ? "copy" : "cancel")}
          onDrop={async (event) => {
            const files = await Promise.all(
              event.items.flatMap((item) => (item.kind === "file" && mediaTypes.includes(item.type) ? [item.getFile()] : []))
            )
            start(files)
          }}
        >
          <Text slot="label">Drop videos or images here, or</Text>
          <FileTrigger allowsMultiple acceptedFileTypes={mediaTypes} onSelect={(list) => start(list === null ? [] : [...list])}>
            <Button>Upload files</Button>
          </FileTrigger>
        </DropZone>
        <Checkbox isSelected={isPrivate} onChange={setPrivate}>
          Private (paid lessons)
        </Checkbox>
        <p className="hint">
          Private files are read only through signed links that expire: the only kind a paid lesson may play. Files of 64 MiB
          or more go up in parts; choosing a file again after a reload continues its upload where it stopped.
        </p>
        {uploads.uploads.length > 0 && (
          <ul className="uploads" aria-label="Uploads">
            {uploads.uploads.map((upload) => <UploadRow key={upload.id} upload={upload} actions={uploads} />)}
          </ul>
        )}
      </section>
      <h2>Library</h2>
      {page.isError && <p role="alert" className="error">{problemMessage(page.error)}</p>}
      {page.data !== undefined && (
        page.data.items.length === 0 ? <p>No files yet: upload the first with “Upload files”.</p> : (
          <table className="media-list" aria-label="Library" aria-busy={page.isFetching}>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Type</th>
                <th scope="col">Size</th>
                <th scope="col">Visibility</th>
                <th scope="col">Used by</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {page.data.items.map((media) => (
                <tr key={media.id}>
                  <th scope="row"><a href={media.url} target="_blank" rel="noreferrer">{media.name}</a></th>
                  <td>{media.content_type}</td>
                  <td>{formatBytes(media.size_bytes)}</td>
                  <td>{media.visibility === "private" ? "Private" : "Public"}</td>
                  <td><MediaUsesList uses={media.used_by} /></td>
                  <td><DeleteMediaDialog media={media} /></td>
                </tr>
              ))}
            </tbody>
          </table>
        )
      )}
      <PageButtons pages={pages} next={page.data?.next} />
    </main>
  )
}
