/**
 * The HTTP contract of Coursekit: every endpoint with its path, inputs, responses and
 * errors. It holds no server code, so a typed client (`HttpApiClient.make(CoursekitApi)`)
 * and the OpenAPI document are derived from it alone.
 *
 * @since 0.1.0
 */
import {
  Course,
  CourseCreate,
  CoursePreview,
  CourseRevision,
  CourseListItem,
  CourseUpdate,
  FileKey,
  FinalizeUploadRequest,
  GeneratedContent,
  GenerateRequest,
  CourseProgress,
  Learner,
  LearnerCourse,
  Lesson,
  LessonCreate,
  LessonProgress,
  ProgressUpdate,
  LessonRevision,
  LessonUpdate,
  MediaFile,
  MediaKind,
  MediaListItem,
  MediaUploadUrlRequest,
  MediaVisibility,
  MultipartCompleteRequest,
  MultipartCreateRequest,
  MultipartStatus,
  MultipartUpload,
  PartUrls,
  PartUrlsRequest,
  PreviewAudience,
  PublicCourse,
  PublishStatusFilter,
  RevisionSummary,
  Section,
  SectionCreate,
  SectionUpdate,
  Purchase,
  queryMaxLength,
  SearchQuery,
  SearchStatusFilter,
  storableText,
  UploadUrlRequest,
  UploadId,
  UploadUrlResponse,
  UserId
} from "@coursekit/core"
import { Schema } from "effect"
import { HttpApi, HttpApiEndpoint, HttpApiError, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { AdminAuth } from "./auth/AdminAuth.ts"
import { CatalogueAuth } from "./auth/CatalogueAuth.ts"
import { ApiProblems } from "./problems/ApiProblems.ts"
import {
  CourseCursorParam,
  CourseIdParam,
  LearnerCursorParam,
  LessonIdParam,
  MediaCursorParam,
  PageLimitParam,
  RevisionCursorParam,
  RevisionIdParam,
  SectionIdParam,
  SlugParam,
  UserCursorParam
} from "./PathParams.ts"
import { describeEditHeaders } from "./problems/EditHeadersDoc.ts"
import { problemsFor } from "./problems/DomainProblems.ts"
import { describeGenerationEventStream } from "./handlers/GenerationEventStream.ts"
import { Forbidden, NotFound, PreconditionRequired, problemDeclaration, UnauthorizedResponse } from "./problems/Problems.ts"
import { describeSessionCookie, describeSessionSecurity, sessionCookieName } from "./auth/SessionCookieDoc.ts"
import { ViewerAuth } from "./auth/ViewerAuth.ts"

/** The body of `GET /`. */
export const Welcome = Schema.Struct({ message: Schema.String }).annotate({ identifier: "Welcome" })

/** The state of one dependency checked by `GET /health/ready`. */
export const DependencyCheck = Schema.Struct({
  name: Schema.String,
  status: Schema.Literals(["up", "down"]),
  detail: Schema.optionalKey(Schema.String)
}).annotate({ identifier: "DependencyCheck" })

/** The body of a successful `GET /health/ready`. */
export const ReadinessReport = Schema.Struct({
  status: Schema.Literal("ready"),
  checks: Schema.Array(DependencyCheck)
}).annotate({ identifier: "ReadinessReport" })

/** 503 from `GET /health/ready`: which dependency is down. */
export class NotReady extends HttpApiError.Problem<NotReady>()("NotReady", problemDeclaration(503), {
  detail: Schema.String,
  checks: Schema.Array(DependencyCheck)
}) {}

/** Health endpoints, at the root of the client. */
export class SystemApi extends HttpApiGroup.make("system", { topLevel: true })
  .add(
    HttpApiEndpoint.get("welcome", "/", {
      success: Welcome
    }).annotate(OpenApi.Summary, "Liveness: a welcome message"),
    HttpApiEndpoint.get("ready", "/health/ready", {
      success: ReadinessReport,
      error: NotReady
    }).annotate(OpenApi.Summary, "Readiness: 200 when the database and storage answer, else 503")
  )
{}


/** The `Link` header of a course page that has a successor. */
const NextLink = { link: Schema.optional(Schema.String).annotate({ description: `<…?cursor=…&limit=L>; rel="next"` }) }

/** What every write of a versioned record says of its preconditions. */
const preconditions = "With If-Match (the ETag of the record as last read, or its version quoted: \"3\"; * for any), a " +
  "record at another version is not written: 412 with current_version and current (the record now). A malformed " +
  "If-Match is a 400. Without it the write goes through, unless the server requires If-Match (REQUIRE_IF_MATCH): 428."
/** What a revision list says of its pages. */
const revisionPages = "Newest first, with cursor pagination: when more follow, a Link header names the next page."
/** The query of a revision list. */
const revisionQuery = {
  cursor: Schema.optional(RevisionCursorParam).annotate({ description: "First revision id of the page (inclusive); the pages go down. Omit for the newest." }),
  limit: Schema.optional(PageLimitParam)
}

const catalogueReaders = "Anyone may read: without admin access only courses visible now (published, publish_at " +
  "null or passed) are shown. With an admin token (or the host's admin session) every course is shown, drafts and " +
  "scheduled ones too, with status and publish_at. Credentials that are neither an admin's nor a valid viewer's " +
  "are a 401. Every answer, errors included, carries Vary on the credentials' headers; an admin's is Cache-Control: " +
  "private, no-store, everyone else's no-cache."

/** The course catalogue. Reads are public (admins see drafts too); writes need an admin token. */
export class CoursesApi extends HttpApiGroup.make("courses")
  .add(
    HttpApiEndpoint.get("list", "/courses", {
      query: {
        cursor: Schema.optional(CourseCursorParam).annotate({
          description: "First course id of the page (inclusive). Omit for the first page."
        }),
        limit: Schema.optional(PageLimitParam),
        status: Schema.optional(PublishStatusFilter).annotate({
          description: "Admins only (else 401, or 403 for a viewer): only drafts, only courses visible now " +
            "(published), or only published courses whose publish_at is still ahead (scheduled)."
        })
      },
      success: HttpApiSchema.WithHeaders(Schema.Array(CourseListItem), NextLink),
      error: problemsFor("PersistenceError")
    }).middleware(CatalogueAuth).annotate(OpenApi.Summary, "List courses, ascending by id, with cursor pagination").annotate(
      OpenApi.Description,
      `${catalogueReaders} Pages hold the courses with id >= cursor. When more exist, a Link header names the next ` +
        "page. The public's responses carry an ETag (an opaque token of the catalogue's state, which also changes when a " +
        "scheduled course's publish_at passes, and the page) and Cache-Control: no-cache; a request with If-None-Match naming " +
        "the current ETag is answered 304 Not Modified without a body."
    ),
    // A static segment: the router tries it before /courses/:id.
    HttpApiEndpoint.get("search", "/courses/search", {
      query: {
        q: SearchQuery,
        limit: Schema.optional(PageLimitParam),
        cursor: Schema.optional(Schema.String).annotate({
          description: "Where the page starts: the cursor the previous page's Link header names (opaque), sent exactly as " +
            "written there; another spelling of it (padded, re-encoded) is a 400. Omit for the first page."
        }),
        status: Schema.optional(SearchStatusFilter)
      },
      success: HttpApiSchema.WithHeaders(Schema.Array(CourseListItem), NextLink),
      error: problemsFor("InvalidSearchCursor", "PersistenceError")
    }).middleware(CatalogueAuth).annotate(OpenApi.Summary, "Search the catalogue, best match first: courses visible now, or any status for admins").annotate(
      OpenApi.Description,
      "Without status, the students' search: everyone, admins included, finds only courses visible now (published, " +
        "publish_at null or passed), shown as list items. With status (admins only; 401, or 403 for a viewer), the " +
        "authors' search: the courses the admin list shows with the same filter (all: every course, drafts and " +
        "scheduled ones too), shown as the admin list's items, with status and publish_at. q's words are compared " +
        "without case or diacritics, with the transliteration of slugs (\"creme brulee\" finds \"Crème brûlée\"); every " +
        "word must occur in the course's title, description or the text of its content_html, and the last word also " +
        "matches the beginning of a word. Ranking: per word, 5 when it is in the title, else 2 in the description, else " +
        "1; higher sums first, then ascending id. When more results follow, a Link header names the next page (q, " +
        "status if given, an opaque cursor, limit); a cursor this service did not " +
        `write is a 400. q empty, without a letter or digit, or longer than ${queryMaxLength} characters: 400. Credentials ` +
        "that are neither an admin's nor a valid viewer's are a 401, as on every catalogue read. Not cached."
    ),
    HttpApiEndpoint.get("get", "/courses/:id", {
      params: { id: CourseIdParam },
      success: Course,
      error: problemsFor("CourseNotFound", "PersistenceError")
    }).middleware(CatalogueAuth).annotate(OpenApi.Summary, "Read one course").annotate(
      OpenApi.Description,
      `${catalogueReaders} A draft or scheduled course is a 404 to everyone else. An admin's answer carries a strong ` +
        "ETag of the course's version, for If-Match."
    ).annotate(OpenApi.Transform, describeEditHeaders({ etag: true })),
    HttpApiEndpoint.post("create", "/courses", {
      payload: CourseCreate,
      success: HttpApiSchema.WithHeaders(Course, { location: Schema.String }).pipe(HttpApiSchema.status(201)),
      error: problemsFor("HtmlTooComplex", "HtmlTooLong", "SanitizerOverloaded", "PersistenceError")
    }).middleware(AdminAuth).annotate(OpenApi.Summary, "Create a course; the slug is generated from the title")
      .annotate(OpenApi.Description, "Stores its first revision (version 1). The answer carries the ETag of version 1.")
      .annotate(OpenApi.Transform, describeEditHeaders({ etag: true, status: "201" })),
    HttpApiEndpoint.patch("update", "/courses/:id", {
      params: { id: CourseIdParam },
      payload: CourseUpdate,
      success: Course,
      error: [...problemsFor("CourseNotFound", "CourseVersionMismatch", "HtmlTooComplex", "HtmlTooLong", "SanitizerOverloaded", "PersistenceError"), PreconditionRequired]
    }).middleware(AdminAuth).annotate(OpenApi.Summary, "Change a course's title or body; the slug stays").annotate(
      OpenApi.Description,
      `${preconditions} A change of an authored field stores a revision; with Coursekit-Autosave: 1, consecutive ` +
        "autosaves by one author within 10 minutes keep one. The answer carries the ETag of the new version."
    ).annotate(OpenApi.Transform, describeEditHeaders({ etag: true, ifMatch: true, autosave: true })),
    HttpApiEndpoint.delete("delete", "/courses/:id", {
      params: { id: CourseIdParam },
      success: HttpApiSchema.NoContent,
      error: [...problemsFor("CourseNotFound", "CourseVersionMismatch", "PersistenceError"), PreconditionRequired]
    }).middleware(AdminAuth).annotate(OpenApi.Summary, "Delete a course").annotate(
      OpenApi.Description,
      "Its lessons, purchases and revisions go with it, and its thumbnail's record and object (unless a lesson also plays " +
        `that file). Media files its lessons used stay in the library: other courses may use them. ${preconditions}`
    ).annotate(OpenApi.Transform, describeEditHeaders({ ifMatch: true })),
    HttpApiEndpoint.get("revisions", "/courses/:id/revisions", {
      params: { id: CourseIdParam },
      query: revisionQuery,
      success: HttpApiSchema.WithHeaders(Schema.Array(RevisionSummary), NextLink),
      error: problemsFor("CourseNotFound", "PersistenceError")
    }).middleware(AdminAuth).annotate(OpenApi.Summary, "A course's revisions").annotate(OpenApi.Description, revisionPages),
    HttpApiEndpoint.get("revision", "/courses/:id/revisions/:revision_id", {
      params: { id: CourseIdParam, revision_id: RevisionIdParam },
      success: CourseRevision,
      error: problemsFor("CourseNotFound", "RevisionNotFound", "PersistenceError")
    }).middleware(AdminAuth).annotate(OpenApi.Summary, "One revision of a course, with its snapshot (record)"),
    HttpApiEndpoint.post("restore", "/courses/:id/revisions/:revision_id/restore", {
      params: { id: CourseIdParam, revision_id: RevisionIdParam },
      success: Course,
      error: [
        ...problemsFor("CourseNotFound", "RevisionNotFound", "CourseVersionMismatch", "HtmlTooComplex", "HtmlTooLong", "SanitizerOverloaded", "PersistenceError"),
        PreconditionRequired
      ]
    }).middleware(AdminAuth).annotate(OpenApi.Summary, "Write a revision's fields back as a new change").annotate(
      OpenApi.Description,
      "A new version and a new revision, whose note names the revision restored; content_html goes through the " +
        "sanitizer again. A thumbnail deleted from the media library since is not put back (the current one stays, " +
        `and the note says so). A restore that would change nothing writes nothing. ${preconditions}`
    ).annotate(OpenApi.Transform, describeEditHeaders({ etag: true, ifMatch: true }))
  )
  .annotateMerge(OpenApi.annotations({ title: "Courses", description: "The course catalogue." }))
{}

const uploadHow = "Files never pass through the service: PUT the bytes to upload_url with exactly the " +
  "returned headers (the URL is valid for 5 minutes), then call finalize-upload with file_key. Without size_bytes, " +
  "a store that can (the local store) refuses a PUT above the limit (413); on the local store a URL takes one file " +
  "(a second PUT is a 409) and the file is served only once finalized."
/** What finalizing an upload can answer besides the course's 404. */
const finalizeErrors = [
  "UploadNotFound",
  "UploadNotReceived",
  "UploadExpired",
  "FileTooLarge",
  "UnsupportedFileType",
  "PersistenceError",
  "StorageError"
] as const
const finalizeHow = "Only a file_key issued here for the same purpose (and course) is accepted (else 404). " +
  "The service asks storage what arrived: absent → 409 (PUT first, then retry); upload URL expired and nothing " +
  "uploaded → 410; larger than the limit → 413 and type not allowed → 415, with the object deleted. size_bytes " +
  "and content_type come from storage. Idempotent: finalizing again records nothing new. Storage unreachable → 503, " +
  "nothing recorded."

/** Course thumbnails (§4.3): admin only. */
export class CourseUploadsApi extends HttpApiGroup.make("courseUploads")
  .add(
    HttpApiEndpoint.post("uploadUrl", "/courses/:id/upload-url", {
      params: { id: CourseIdParam },
      payload: UploadUrlRequest,
      success: UploadUrlResponse,
      error: problemsFor("CourseNotFound", "FileTooLarge", "UnsupportedFileType", "PersistenceError", "StorageError")
    }).middleware(AdminAuth).annotate(OpenApi.Summary, "Presign a PUT of the course's thumbnail").annotate(
      OpenApi.Description,
      `Images only: image/jpeg, png, webp, gif, avif (never SVG; else 415). With size_bytes, a file over the ` +
        `limit is refused at once (413) and the size is signed as Content-Length. ${uploadHow}`
    ),
    HttpApiEndpoint.post("finalizeUpload", "/courses/:id/finalize-upload", {
      params: { id: CourseIdParam },
      payload: FinalizeUploadRequest,
      success: Course,
      error: problemsFor("CourseNotFound", ...finalizeErrors)
    }).middleware(AdminAuth).annotate(OpenApi.Summary, "Confirm the thumbnail: the course gets thumbnail_key and thumbnail_url")
      .annotate(OpenApi.Description, `${finalizeHow} The file is also recorded in the media library.`)
  )
  .annotateMerge(OpenApi.annotations({ title: "Course uploads", description: "A course's thumbnail, uploaded straight to storage." }))
{}

/** The admin media library (§4.4). */
export class MediaApi extends HttpApiGroup.make("media")
  .add(
    HttpApiEndpoint.post("uploadUrl", "/admin/media/upload-url", {
      payload: MediaUploadUrlRequest,
      success: UploadUrlResponse,
      error: problemsFor("FileTooLarge", "UnsupportedFileType", "PersistenceError", "StorageError")
    }).middleware(AdminAuth).annotate(OpenApi.Summary, "Presign a PUT of a media file (video or image)").annotate(
      OpenApi.Description,
      `Types: image/jpeg, png, webp, gif, avif and video/mp4, webm, quicktime (else 415). ${uploadHow} ` +
        `visibility "private" (for paid lesson videos) stores the file under private/media/, readable only through ` +
        "signed URLs that expire; the default, public, under media/ at a permanent URL. One PUT takes at most " +
        "UPLOAD_SINGLE_PUT_MAX_BYTES (default 5 GiB − 5 MiB): a larger declared size_bytes is a 413 that points to " +
        "POST /admin/media/multipart."
    ),
    HttpApiEndpoint.post("finalizeUpload", "/admin/media/finalize-upload", {
      payload: FinalizeUploadRequest,
      success: MediaFile,
      error: problemsFor(...finalizeErrors)
    }).middleware(AdminAuth).annotate(OpenApi.Summary, "Confirm a media upload: recorded once, keyed by storage key")
      .annotate(
        OpenApi.Description,
        `${finalizeHow} The response's url is a public file's permanent URL, or a private file's signed URL, valid ` +
          "until url_expires_at (MEDIA_URL_TTL)."
      ),
    HttpApiEndpoint.get("list", "/admin/media", {
      query: {
        cursor: Schema.optional(MediaCursorParam).annotate({ description: "First media file id of the page (inclusive)." }),
        limit: Schema.optional(PageLimitParam),
        kind: Schema.optional(MediaKind).annotate({ description: "Only files of this kind (video or image); default all." }),
        visibility: Schema.optional(MediaVisibility).annotate({ description: "Only public or only private files; default both." })
      },
      success: HttpApiSchema.WithHeaders(Schema.Array(MediaListItem), NextLink),
      error: problemsFor("PersistenceError", "StorageError")
    }).middleware(AdminAuth).annotate(OpenApi.Summary, "List media files, ascending by id, with cursor pagination")
      .annotate(
        OpenApi.Description,
        "A private file's url is signed for this response, valid until url_expires_at. Each file says what uses it " +
          "(used_by: the lessons that play it, the course whose thumbnail it is), as DELETE's 409 would name them. " +
          "kind and visibility narrow the list (a paid lesson's video: kind=video&visibility=private); a page holds " +
          "limit files of those, and its Link keeps them."
      ),
    HttpApiEndpoint.delete("delete", "/admin/media", {
      query: { file_key: FileKey },
      success: HttpApiSchema.NoContent,
      error: problemsFor("MediaNotFound", "MediaInUse", "PersistenceError")
    }).middleware(AdminAuth).annotate(OpenApi.Summary, "Delete a media file: its record and its object").annotate(
      OpenApi.Description,
      "404 when no media file is recorded under file_key. 409 while a lesson plays it or a course shows it as its " +
        "thumbnail; the problem names them (lessons, thumbnail_of). Signed URLs already handed out stop working once " +
        "the object is gone."
    )
  )
  .annotateMerge(OpenApi.annotations({ title: "Media", description: "The admin media library." }))
{}

const multipartPath = { upload_id: UploadId }
const multipartHow = "Large media files go up in parts, straight to storage: create the upload, ask for part URLs as you " +
  "go (each valid 5 minutes), PUT each part with exactly its headers and keep the ETag the PUT answers, then complete " +
  "with every part's number and ETag. GET tells what storage holds, so a client that lost its state uploads only " +
  "the missing parts."

/** Multipart uploads of large media files. */
export class MultipartApi extends HttpApiGroup.make("multipart")
  .add(
    HttpApiEndpoint.post("create", "/admin/media/multipart", {
      payload: MultipartCreateRequest,
      success: MultipartUpload.pipe(HttpApiSchema.status(201)),
      error: problemsFor("FileTooLarge", "UnsupportedFileType", "PersistenceError", "StorageError")
    }).middleware(AdminAuth).annotate(OpenApi.Summary, "Start a multipart upload of a media file").annotate(
      OpenApi.Description,
      `${multipartHow} The service picks part_size (whole MiB, at least 5 MiB, at most 10,000 parts) from size_bytes; ` +
        "every part but the last holds exactly part_size bytes. Types and visibility as for /admin/media/upload-url " +
        "(else 415); larger than UPLOAD_MEDIA_MAX_BYTES: 413. The upload stays open until expires_at (24 hours)."
    ),
    HttpApiEndpoint.post("partUrls", "/admin/media/multipart/:upload_id/parts", {
      params: multipartPath,
      payload: PartUrlsRequest,
      success: PartUrls,
      error: problemsFor("MultipartNotFound", "MultipartCompleted", "UploadExpired", "PartOutOfRange", "PersistenceError", "StorageError")
    }).middleware(AdminAuth).annotate(OpenApi.Summary, "Presign PUTs of parts (at most 100 per call, each valid 5 minutes)")
      .annotate(OpenApi.Description, "A part uploaded again replaces it. A part number past part_count: 422."),
    HttpApiEndpoint.get("status", "/admin/media/multipart/:upload_id", {
      params: multipartPath,
      success: MultipartStatus,
      error: problemsFor("MultipartNotFound", "MultipartCompleted", "UploadExpired", "PersistenceError", "StorageError")
    }).middleware(AdminAuth).annotate(OpenApi.Summary, "The parts storage holds now, to resume with only the missing ones")
      .annotate(OpenApi.Description, "From expires_at on: 410, as for part URLs; start a new upload."),
    HttpApiEndpoint.post("complete", "/admin/media/multipart/:upload_id/complete", {
      params: multipartPath,
      payload: MultipartCompleteRequest,
      success: MediaFile,
      error: problemsFor("MultipartNotFound", "PartRejected", "PartOutOfRange", ...finalizeErrors)
    }).middleware(AdminAuth).annotate(OpenApi.Summary, "Assemble the parts into the media file; the same answer as finalize-upload")
      .annotate(
        OpenApi.Description,
        "Name every part 1…part_count once, in order, with the ETag its PUT answered. A list out of ascending " +
          "part_number order (or naming a part twice) is a 400 naming the first part out of place (errors[].path). A " +
          "missing, wrong or too small part is a 409 naming it (part_number), and nothing changes. The object is " +
          "assembled, HEADed, its size taken from storage and recorded; completing again answers the same record. " +
          "Accepted until the grace period (UPLOAD_GRACE_PERIOD) after expires_at ends, then 410 and nothing is assembled."
      ),
    HttpApiEndpoint.delete("abort", "/admin/media/multipart/:upload_id", {
      params: multipartPath,
      success: HttpApiSchema.NoContent,
      error: problemsFor("MultipartNotFound", "MultipartCompleted", "PersistenceError", "StorageError")
    }).middleware(AdminAuth).annotate(OpenApi.Summary, "Abort a multipart upload and free its parts")
  )
  .annotateMerge(OpenApi.annotations({ title: "Multipart uploads", description: "Large media files, uploaded in parts." }))
{}

const lessonPath = { id: CourseIdParam, lesson_id: LessonIdParam }
const lessonBodies = "content_html is sanitized before it is stored (stages 2 and 3 of the pipeline). " +
  "video_key must name a finalized media file (else 422), and a lesson that is not a preview must use a private " +
  "one (else 422): a public video can be watched by anyone with its URL. video_url of a private video is signed " +
  "for this response, valid until video_url_expires_at. section_id must name a section of the course (else 422); " +
  "positions count within the lesson's section (or among the loose lessons). status draft, or a publish_at ahead, " +
  "keeps the lesson out of the public course until it is published and its publish_at has passed."

/** A course's lessons: admin only. */
export class LessonsApi extends HttpApiGroup.make("lessons")
  .add(
    HttpApiEndpoint.post("create", "/courses/:id/lessons", {
      params: { id: CourseIdParam },
      payload: LessonCreate,
      success: Lesson.pipe(HttpApiSchema.status(201)),
      error: problemsFor("CourseNotFound", "VideoNotFound", "PublicVideoOnPaidLesson", "UnknownSection", "HtmlTooComplex", "HtmlTooLong", "SanitizerOverloaded", "PersistenceError", "StorageError")
    }).middleware(AdminAuth).annotate(OpenApi.Summary, "Add a lesson (at the end, or at position)").annotate(
      OpenApi.Description,
      `${lessonBodies} A position shifts the lessons from there on; past the end means the end. Stores the lesson's ` +
        "first revision; the answer carries the ETag of version 1."
    ).annotate(OpenApi.Transform, describeEditHeaders({ etag: true, status: "201" })),
    HttpApiEndpoint.get("list", "/courses/:id/lessons", {
      params: { id: CourseIdParam },
      success: Schema.Array(Lesson),
      error: problemsFor("CourseNotFound", "PersistenceError", "StorageError")
    }).middleware(AdminAuth).annotate(OpenApi.Summary, "List a course's lessons, with their bodies, drafts included").annotate(
      OpenApi.Description,
      "The loose lessons in position order, then each section's lessons in the sections' order."
    ),
    HttpApiEndpoint.patch("update", "/courses/:id/lessons/:lesson_id", {
      params: lessonPath,
      payload: LessonUpdate,
      success: Lesson,
      error: [
        ...problemsFor("LessonNotFound", "LessonVersionMismatch", "VideoNotFound", "PublicVideoOnPaidLesson", "UnknownSection", "HtmlTooComplex", "HtmlTooLong", "SanitizerOverloaded", "PersistenceError", "StorageError"),
        PreconditionRequired
      ]
    }).middleware(AdminAuth).annotate(OpenApi.Summary, "Change a lesson, or move it to another position or section").annotate(
      OpenApi.Description,
      `${lessonBodies} Positions stay 1…n: moving a lesson shifts those between; past the end means last. ` +
        "A section_id (null: the loose lessons) moves the lesson to that section at position (absent: its end) in " +
        "one step, closing the gap it leaves. " +
        "Switching is_preview off locks the lesson for non-buyers at once; it is refused (422) while the video is public. " +
        `${preconditions} A change of title, content_html, is_preview, video_key, status, publish_at or section stores a ` +
        "revision (a move within its section does not); with Coursekit-Autosave: 1, consecutive autosaves by one author " +
        "within 10 minutes keep one. The answer carries the ETag of the new version."
    ).annotate(OpenApi.Transform, describeEditHeaders({ etag: true, ifMatch: true, autosave: true })),
    HttpApiEndpoint.delete("delete", "/courses/:id/lessons/:lesson_id", {
      params: lessonPath,
      success: HttpApiSchema.NoContent,
      error: [...problemsFor("LessonNotFound", "LessonVersionMismatch", "PersistenceError", "StorageError"), PreconditionRequired]
    }).middleware(AdminAuth).annotate(OpenApi.Summary, "Delete a lesson; the lessons after it move up")
      .annotate(OpenApi.Description, `Its revisions go with it. ${preconditions}`)
      .annotate(OpenApi.Transform, describeEditHeaders({ ifMatch: true })),
    HttpApiEndpoint.get("revisions", "/courses/:id/lessons/:lesson_id/revisions", {
      params: lessonPath,
      query: revisionQuery,
      success: HttpApiSchema.WithHeaders(Schema.Array(RevisionSummary), NextLink),
      error: problemsFor("LessonNotFound", "PersistenceError")
    }).middleware(AdminAuth).annotate(OpenApi.Summary, "A lesson's revisions").annotate(OpenApi.Description, revisionPages),
    HttpApiEndpoint.get("revision", "/courses/:id/lessons/:lesson_id/revisions/:revision_id", {
      params: { ...lessonPath, revision_id: RevisionIdParam },
      success: LessonRevision,
      error: problemsFor("LessonNotFound", "RevisionNotFound", "PersistenceError")
    }).middleware(AdminAuth).annotate(OpenApi.Summary, "One revision of a lesson, with its snapshot (record)"),
    HttpApiEndpoint.post("restore", "/courses/:id/lessons/:lesson_id/revisions/:revision_id/restore", {
      params: { ...lessonPath, revision_id: RevisionIdParam },
      success: Lesson,
      error: [
        ...problemsFor("LessonNotFound", "RevisionNotFound", "LessonVersionMismatch", "VideoNotFound", "PublicVideoOnPaidLesson", "UnknownSection", "HtmlTooComplex", "HtmlTooLong", "SanitizerOverloaded", "PersistenceError", "StorageError"),
        PreconditionRequired
      ]
    }).middleware(AdminAuth).annotate(OpenApi.Summary, "Write a lesson revision's fields back as a new change").annotate(
      OpenApi.Description,
      "A new version and a new revision, whose note names the revision restored; content_html goes through the " +
        "sanitizer again, and video_key must still name a finalized media file (else 422). A lesson whose section no " +
        "longer exists comes back among the loose lessons (at their end), and the note says so. A restore that would " +
        `change nothing writes nothing. ${preconditions}`
    ).annotate(OpenApi.Transform, describeEditHeaders({ etag: true, ifMatch: true }))
  )
  .annotateMerge(OpenApi.annotations({ title: "Lessons", description: "A course's lessons, in order." }))
{}

const sectionPath = { id: CourseIdParam, section_id: SectionIdParam }

/** A course's sections: admin only. */
export class SectionsApi extends HttpApiGroup.make("sections")
  .add(
    HttpApiEndpoint.post("create", "/courses/:id/sections", {
      params: { id: CourseIdParam },
      payload: SectionCreate,
      success: Section.pipe(HttpApiSchema.status(201)),
      error: problemsFor("CourseNotFound", "PersistenceError")
    }).middleware(AdminAuth).annotate(OpenApi.Summary, "Add a section (at the end, or at position)").annotate(
      OpenApi.Description,
      "A position shifts the sections from there on; past the end means the end. The answer carries the ETag of version 1."
    ).annotate(OpenApi.Transform, describeEditHeaders({ etag: true, status: "201" })),
    HttpApiEndpoint.get("list", "/courses/:id/sections", {
      params: { id: CourseIdParam },
      success: Schema.Array(Section),
      error: problemsFor("CourseNotFound", "PersistenceError")
    }).middleware(AdminAuth).annotate(OpenApi.Summary, "List a course's sections in position order"),
    HttpApiEndpoint.patch("update", "/courses/:id/sections/:section_id", {
      params: sectionPath,
      payload: SectionUpdate,
      success: Section,
      error: [...problemsFor("SectionNotFound", "SectionVersionMismatch", "PersistenceError"), PreconditionRequired]
    }).middleware(AdminAuth).annotate(OpenApi.Summary, "Rename a section, or move it to another position").annotate(
      OpenApi.Description,
      "Positions stay 1…n: moving a section shifts those between; past the end means last. Its lessons move with it. " +
        `${preconditions} The answer carries the ETag of the new version. Sections keep no revisions.`
    ).annotate(OpenApi.Transform, describeEditHeaders({ etag: true, ifMatch: true })),
    HttpApiEndpoint.delete("delete", "/courses/:id/sections/:section_id", {
      params: sectionPath,
      query: {
        lessons: Schema.optional(Schema.Literal("detach")).annotate({
          description: "detach: the section's lessons become loose lessons of the course, appended in their order. " +
            "Without it, a section that still has lessons is not deleted (409)."
        })
      },
      success: HttpApiSchema.NoContent,
      error: [...problemsFor("SectionNotFound", "SectionVersionMismatch", "SectionNotEmpty", "PersistenceError"), PreconditionRequired]
    }).middleware(AdminAuth).annotate(OpenApi.Summary, "Delete a section; the sections after it move up")
      .annotate(OpenApi.Description, `Detached lessons each store a revision (their section changed). ${preconditions}`)
      .annotate(OpenApi.Transform, describeEditHeaders({ ifMatch: true }))
  )
  .annotateMerge(OpenApi.annotations({ title: "Sections", description: "Ordered groups of a course's lessons." }))
{}

/** The public course (DECISIONS §5). */
export class PublicApi extends HttpApiGroup.make("public")
  .add(
    HttpApiEndpoint.get("course", "/public/courses/:slug", {
      params: { slug: SlugParam },
      success: PublicCourse,
      error: problemsFor("CourseSlugNotFound", "PersistenceError", "StorageError")
    }).middleware(ViewerAuth).annotate(OpenApi.Summary, "A course with its lessons, as this viewer may see it").annotate(
      OpenApi.Description,
      "Anyone may call it; a signed-in viewer sends Authorization: Bearer <viewer JWT> (standalone: HS256 with " +
        "JWT_SECRET, or a key from JWKS_URL; sub is the user id). A token that does not verify (forged, expired, " +
        "malformed) is a 401, never an anonymous answer. Preview lessons show content_html and video_url to " +
        "everyone; the others only to viewers who bought the course (access purchased), else they are locked and " +
        "both are null. A bought lesson with available_after_days opens that many days after the viewer's purchase: " +
        "until then its access is upcoming, available_at says when, and both are null. A private video's video_url is signed for this response and works until video_url_expires_at " +
        "(MEDIA_URL_TTL): read the course again for a new one; after a refund none is issued. Anonymous responses are Cache-Control: public, no-cache; a viewer's are private, no-cache; " +
        "both carry an ETag and Vary: Authorization, and If-None-Match with the current ETag is answered 304."
    ),
    HttpApiEndpoint.get("preview", "/admin/courses/:id/preview", {
      params: { id: CourseIdParam },
      query: { as: PreviewAudience },
      success: CoursePreview,
      error: problemsFor("CourseNotFound", "PersistenceError", "StorageError")
    }).middleware(AdminAuth).annotate(OpenApi.Summary, "The public course as a visitor or a buyer would see it (admins)").annotate(
      OpenApi.Description,
      "Admin-only, for previewing before publishing (Coursekit Studio's Preview as learner). course is what " +
        "GET /public/courses/{slug} answers, built by the same code, for a course of any status: as=visitor as anyone " +
        "without the purchase sees it (previews open, the other lessons locked), as=buyer as a viewer who bought the " +
        "course at this instant (drip counts available_after_days from now: such lessons are upcoming with available_at). " +
        "Unlike the public page, drafts and scheduled lessons are shown in their places (positions count them) and named in " +
        "not_public_lessons; public and status say whether the course itself is visible now."
    )
  )
  .annotateMerge(OpenApi.annotations({ title: "Public", description: "What students see, and its preview for admins." }))
{}

const purchasePath = { id: CourseIdParam, user_id: UserId }

/** Purchases recorded by an admin (or a payment webhook calling the admin API). */
export class PurchasesApi extends HttpApiGroup.make("purchases")
  .add(
    HttpApiEndpoint.put("grant", "/admin/courses/:id/purchases/:user_id", {
      params: purchasePath,
      success: Purchase,
      error: problemsFor("CourseNotFound", "PersistenceError")
    }).middleware(AdminAuth).annotate(OpenApi.Summary, "Record that a user bought a course (idempotent)").annotate(
      OpenApi.Description,
      "user_id is the viewer token's sub. Recording it again answers the first purchase unchanged. Access starts at once."
    ),
    HttpApiEndpoint.delete("revoke", "/admin/courses/:id/purchases/:user_id", {
      params: purchasePath,
      success: HttpApiSchema.NoContent,
      error: problemsFor("CourseNotFound", "PersistenceError")
    }).middleware(AdminAuth).annotate(OpenApi.Summary, "Take a purchase back (idempotent); access ends at once")
  )
  .annotateMerge(OpenApi.annotations({ title: "Purchases", description: "Who bought which course." }))
{}

const learnerOnly = "A signed-in viewer's (Authorization: Bearer <viewer JWT>, or the host's session when embedded); " +
  "anonymous: 401."

/** Learners' progress (their own, as signed-in viewers) and, for admins, a course's learners. */
export class LearningApi extends HttpApiGroup.make("learning")
  .add(
    HttpApiEndpoint.put("recordProgress", "/me/lessons/:lesson_id/progress", {
      params: { lesson_id: LessonIdParam },
      payload: ProgressUpdate,
      success: LessonProgress,
      error: [...problemsFor("UnknownLesson", "LessonLocked", "PersistenceError"), UnauthorizedResponse]
    }).middleware(ViewerAuth).annotate(OpenApi.Summary, "Save a lesson's progress: done, and where the video stopped").annotate(
      OpenApi.Description,
      `${learnerOnly} Idempotent: completed_at is the first completion's instant (database clock) and stays on repeats; ` +
        "completed false clears it; position_seconds replaces the position; an absent field stays. Only for a lesson the " +
        "viewer may open now: a preview, or a visible lesson of a course they bought that drip has released; else 403 " +
        "(with available_at when drip will release it) or 404 (not visible now). Completing the last lesson visible now " +
        "completes the course (once)."
    ),
    HttpApiEndpoint.get("courseProgress", "/me/courses/:id/progress", {
      params: { id: CourseIdParam },
      success: CourseProgress,
      error: [...problemsFor("CourseNotFound", "PersistenceError"), UnauthorizedResponse]
    }).middleware(ViewerAuth).annotate(OpenApi.Summary, "The viewer's progress in a course").annotate(
      OpenApi.Description,
      `${learnerOnly} Over the course's lessons visible now, in outline order. A course not visible now: 404.`
    ),
    HttpApiEndpoint.get("myCourses", "/me/courses", {
      query: {
        cursor: Schema.optional(LearnerCursorParam).annotate({ description: "Where the page starts: the cursor the previous page's Link names (opaque)." }),
        limit: Schema.optional(PageLimitParam)
      },
      success: HttpApiSchema.WithHeaders(Schema.Array(LearnerCourse), NextLink),
      error: [...problemsFor("InvalidLearnerCursor", "PersistenceError"), UnauthorizedResponse]
    }).middleware(ViewerAuth).annotate(OpenApi.Summary, "The courses the viewer bought, most recently active first").annotate(
      OpenApi.Description,
      `${learnerOnly} A revoked purchase leaves the list (its progress is kept for a renewal). When more follow, a Link names the next page.`
    ),
    HttpApiEndpoint.get("learners", "/admin/courses/:id/learners", {
      params: { id: CourseIdParam },
      query: {
        cursor: Schema.optional(UserCursorParam).annotate({ description: "The last user id of the previous page (exclusive), as the Link names it." }),
        limit: Schema.optional(PageLimitParam)
      },
      success: HttpApiSchema.WithHeaders(Schema.Array(Learner), NextLink),
      error: problemsFor("CourseNotFound", "PersistenceError")
    }).middleware(AdminAuth).annotate(OpenApi.Summary, "A course's learners (its buyers) with their progress, by user id")
  )
  .annotateMerge(OpenApi.annotations({ title: "Learning", description: "Learners' progress, completion and drip." }))
{}

/** AI-written HTML (DECISIONS §7): admin only. */
export class AiApi extends HttpApiGroup.make("ai")
  .add(
    HttpApiEndpoint.post("generate", "/admin/ai/generate", {
      payload: GenerateRequest,
      success: GeneratedContent,
      error: problemsFor("GenerationFailed", "GenerationInterrupted", "NoModelConfigured", "SanitizerOverloaded")
    }).middleware(AdminAuth).annotate(OpenApi.Summary, "Write HTML learning content with the configured language models").annotate(
      OpenApi.Description,
      "The models are tried in order (AI_PRIMARY_*, then AI_SECONDARY_*), each within AI_TIMEOUT_MS. The next one " +
        "takes over when one fails: 429, 5xx, time-out, network, auth or model errors, output that is empty once " +
        "sanitized, an answer past AI_MAX_OUTPUT_BYTES or HTML longer than a body may store once sanitized (too_long), " +
        "or HTML past the sanitizer's element limit or time budget (too_complex). " +
        "A model that answered 429, 5xx or timed out is skipped for its Retry-After (else AI_COOLDOWN_MS). " +
        "html has passed all three sanitization stages; nothing is stored. attempts lists every try (provider, " +
        "model, outcome, duration_ms, usage as the provider reported it, cost_usd at the step's prices). Every model " +
        "failed: 502 with the attempts. No model configured, or the HTML sanitizer's queue full: 503 (with " +
        "Retry-After, as every 503). Accept: text/event-stream streams the answer as " +
        "server-sent events (see the 200 response); the stream falls back to the next model only until its first html event."
    ).annotate(OpenApi.Transform, describeGenerationEventStream)
  )
  .annotateMerge(OpenApi.annotations({ title: "AI", description: "HTML learning content written by language models." }))
{}

/** Most characters of a token sent to sign in; admin tokens are far shorter (generated ones 46). */
export const signInTokenMaxLength = 4096

/** The body of `POST /admin/session`: an admin token. */
export const SessionSignIn = Schema.Struct({
  token: Schema.String.check(
    Schema.isNonEmpty({ message: "token must not be empty" }),
    Schema.isMaxLength(signInTokenMaxLength, { message: `token must be at most ${signInTokenMaxLength} characters` }),
    storableText("token")
  ).annotate({ description: "An admin token of this server: an ADMIN_TOKENS entry's token, or the one generated into DATA_DIR/admin-token." })
}).annotate({ identifier: "SessionSignIn" })

/** What a sign-in answers: who the session writes as. */
export const AdminSession = Schema.Struct({
  author: Schema.String.annotate({
    description: "The author of the session's revisions, as the token gives it: its ADMIN_TOKENS name, or admin- and 8 hex digits for a bare token."
  })
}).annotate({ identifier: "AdminSession" })

const sessionsWhere = "The standalone server's only: embedded in an app, the app's own login decides admin access (404 here)."

/** The Studio's sign-in: a session cookie in place of the admin token, for browsers. */
export class SessionApi extends HttpApiGroup.make("session")
  .add(
    HttpApiEndpoint.post("signIn", "/admin/session", {
      payload: SessionSignIn,
      success: AdminSession,
      error: [UnauthorizedResponse, Forbidden, NotFound, ...problemsFor("PersistenceError")]
    }).annotate(OpenApi.Summary, "Sign in with an admin token: the answer sets the session cookie").annotate(
      OpenApi.Description,
      `Sets ${sessionCookieName} (HttpOnly, SameSite=Strict, Path the public URL's path, Secure when PUBLIC_URL is https; ` +
        "no Max-Age: it lasts as long as the browser session, and the server ends it after 12 hours without use). From then " +
        "on the cookie stands in for Authorization: Bearer on every admin endpoint, and admins' catalogue reads, for requests " +
        "that send no Authorization; a write (POST, PUT, PATCH, DELETE) admitted by the cookie must carry Origin: the " +
        "server's own origin (PUBLIC_URL's), else 403. A token that is no admin token: 401. An Origin of another site: " +
        `403, nothing set. Every instance knows the session; a restart keeps it. ${sessionsWhere}`
    ).annotate(OpenApi.Transform, describeSessionCookie("set")),
    HttpApiEndpoint.delete("signOut", "/admin/session", {
      success: HttpApiSchema.NoContent,
      error: [Forbidden, NotFound, ...problemsFor("PersistenceError")]
    }).annotate(OpenApi.Summary, "Sign out: the session ends on every instance, and the answer clears the cookie").annotate(
      OpenApi.Description,
      "The session the cookie names is refused everywhere from the next request on. With the cookie, the request must " +
        "carry Origin: the server's own origin (else 403, and the session goes on); without it there is nothing to end " +
        `(204). ${sessionsWhere}`
    ).annotate(OpenApi.Transform, describeSessionCookie("clear"))
  )
  .annotateMerge(OpenApi.annotations({
    title: "Session",
    description: "Sign-in for browsers (the Studio): an admin token once, then an HttpOnly session cookie."
  }))
{}

/** The whole API. */
/** Strict bodies: an unknown field is an error (query and path stay lenient). The edge decodes with them too. */
export const payloadParseOptions = { onExcessProperty: "error", errors: "all" } as const

export class CoursekitApi extends HttpApi.make("coursekit")
  .add(SystemApi)
  .add(CoursesApi)
  .add(CourseUploadsApi)
  .add(MediaApi)
  .add(MultipartApi)
  .add(LessonsApi)
  .add(SectionsApi)
  .add(PublicApi)
  .add(PurchasesApi)
  .add(LearningApi)
  .add(AiApi)
  .add(SessionApi)
  // Applies to the endpoints added above: every one may answer 400 and 500 problems.
  .middleware(ApiProblems)
  .annotate(HttpApi.PayloadParseOptions, payloadParseOptions)
  .annotateMerge(OpenApi.annotations({
    title: "Coursekit",
    version: "0.1.0",
    description: "Course content service: catalogue, uploads, lessons and AI-written HTML. " +
      "Errors are RFC 9457 problem details (application/problem+json). Every 503 (a dependency down or " +
      "frozen, the HTML sanitizer's queue full) carries Retry-After in seconds; nothing was written.",
    // Every admin endpoint takes the session cookie where it takes the bearer token.
    transform: describeSessionSecurity
  }))
{}
