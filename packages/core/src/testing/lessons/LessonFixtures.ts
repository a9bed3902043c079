/**
 * Lessons the conformance suites insert: published now, not a preview, loose, no video,
 * a body made from the title so a test can look for it.
 */
import type { NewLesson } from "../../lessons/LessonRepo.ts"
import { publishedNow } from "../../catalogue/Publishing.ts"

/** A lesson titled `title`, its body `<p>{title} body</p>`, with `extra` over the defaults. */
export const newLesson = (title: string, extra: Partial<NewLesson> = {}): NewLesson => ({
  title,
  content_html: `<p>${title} body</p>`,
  video_key: null,
  is_preview: false,
  section_id: null,
  ...publishedNow,
  ...extra
})
