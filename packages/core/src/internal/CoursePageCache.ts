import type { CoursePage } from "../Course.ts"

/**
 * Course list pages by `cursor:limit`, usable only while the change feed is live.
 * Every invalidation bumps `generation`, so a page read from the store while a change
 * landed is not stored (the caller compares generations around its read).
 * Bounded: at most `maxEntries` pages (oldest inserted dropped first), each for at most
 * `maxAgeMillis`, which also bounds staleness if a feed stalls without failing.
 */
export class CoursePageCache {
  private readonly pages = new Map<string, { readonly page: CoursePage; readonly expiresAt: number }>()
  private live = false
  generation = 0

  constructor(private readonly maxEntries: number, private readonly maxAgeMillis: number) {}

  get isLive(): boolean {
    return this.live
  }

  get(key: string, now: number): CoursePage | undefined {
    if (!this.live) return undefined
    const entry = this.pages.get(key)
    if (entry === undefined) return undefined
    if (entry.expiresAt <= now) {
      this.pages.delete(key)
      return undefined
    }
    return entry.page
  }

  /** Stores `page` if nothing was invalidated since `generation` was read. */
  set(key: string, page: CoursePage, generation: number, now: number): void {
    if (!this.live || generation !== this.generation || this.maxEntries === 0) return
    if (this.pages.size >= this.maxEntries && !this.pages.has(key)) {
      this.pages.delete(this.pages.keys().next().value!)
    }
    this.pages.set(key, { page, expiresAt: now + this.maxAgeMillis })
  }

  invalidate(): void {
    this.generation++
    this.pages.clear()
  }

  goLive(): void {
    this.invalidate()
    this.live = true
  }

  goDark(): void {
    this.live = false
    this.invalidate()
  }
}
