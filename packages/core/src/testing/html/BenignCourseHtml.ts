/**
 * Benign course HTML: realistic documents, written the way authors and models write them
 * (indentation, pasted player code, `target="_blank"` without `rel`), that use every tag,
 * every attribute of a tag and every video provider of the default allow-list. Nothing in
 * them is an attack: the sanitizer keeps every element and only tidies (whitespace,
 * `tbody`, `rel`, players written afresh), and its output sanitizes to itself.
 *
 * One definition for every suite that needs "ordinary course content": the sanitizer's
 * tests (in process and in a browser) and the Studio's editor, whose schema must keep
 * what the sanitizer keeps. Attributes are written in the order the allow-list lists
 * them, `class` first (the order an editor writes them in).
 *
 * @since 0.2.0
 */

/** The benign course documents, by name. */
export const benignCourseHtml = {
  /** A short lesson: one of each common block. */
  loops: `
<h2>Loops</h2>
<p class="text-center font-bold">Repeat <b>work</b> with <a href="https://example.com/docs" target="_blank">loops</a>.</p>
<ul class="list-disc ml-6"><li>for</li><li>while</li></ul>
<ol start="3"><li>three</li><li>four</li></ol>
<table class="table-auto w-full"><thead><tr><th>Loop</th><th>Use</th></tr></thead><tbody><tr><td>for</td><td>counts</td></tr></tbody></table>
<details><summary>Solution</summary><pre><code>for (let i = 0; i &lt; 3; i++) {}</code></pre></details>
<figure><img src="/images/loop.png" alt="A loop" width="320" height="200"><figcaption>A loop</figcaption></figure>
<blockquote>Repetition is the mother of learning.</blockquote>`,

  /** Headings of every level and every inline mark, alone and nested. */
  typography: `
<h1 class="text-3xl font-bold tracking-tight">Writing readable code</h1>
<p class="text-lg leading-relaxed text-gray-600">A guide for the <abbr title="Introduction to Programming">ITP</abbr> course, week&nbsp;3.</p>
<h2 class="mt-8 mb-4">Emphasis</h2>
<p>Use <strong>strong importance</strong>, <b>keywords</b>, <em>stress</em>, <i>technical terms</i>,
  <u>misspellings</u>, <s>outdated advice</s>, <mark>key terms</mark> and <small>fine print</small>.</p>
<h3>Formulas and code</h3>
<p>Water is H<sub>2</sub>O and E = mc<sup>2</sup>. Call <code>print()</code>, press <kbd>Ctrl</kbd>+<kbd>C</kbd>,
  and remember <q cite="https://example.com/knuth">premature optimization is the root of all evil</q>
  from <cite>The Art of Computer Programming</cite>.</p>
<h4 class="font-semibold">Links</h4>
<p><a href="https://developer.mozilla.org/" title="MDN Web Docs"><strong>MDN</strong></a> documents
  <strong>every <em>element</em></strong>; see <a href="/lessons/2#marks">lesson 2</a>,
  <a href="https://example.com/forum" rel="nofollow ugc">the forum</a> or <a href="mailto:tutor@example.com">write to us</a>.</p>
<h5>Line breaks</h5>
<p>Roses are red,<br>violets are blue.</p>
<hr>
<h6 class="text-xs tracking-wider">Fine print</h6>
<p><small class="text-gray-600">Examples run on Node&nbsp;24.</small></p>`,

  /** Nested, numbered, continued and reversed lists, loose and tight, and a glossary. */
  lists: `
<h2>Getting started</h2>
<ol class="list-decimal pl-6 space-y-2">
  <li>Install the tools:
    <ul class="list-disc">
      <li>Node.js 24</li>
      <li>a code editor, such as <a href="https://code.visualstudio.com/">VS Code</a></li>
    </ul>
  </li>
  <li><p>Create a project.</p><p>Name it after your course.</p></li>
</ol>
<ol start="3">
  <li>Run it.</li>
  <li>Share it.</li>
</ol>
<p>Countdown:</p>
<ol reversed>
  <li>three</li>
  <li>two</li>
  <li>one</li>
</ol>
<h3>Glossary</h3>
<dl class="space-y-1">
  <dt>Variable</dt>
  <dd>A named value.</dd>
  <dt><code>function</code></dt>
  <dd><p>A named block of code.</p><p>It may <em>return</em> a value.</p></dd>
</dl>`,

  /** A table with every part: caption, head, body, foot, header cells, spans. */
  tables: `
<h2>How fast is each loop?</h2>
<table class="table-fixed w-full border-collapse border border-gray-300">
  <caption class="text-sm">Time for a million iterations</caption>
  <thead>
    <tr><th scope="col">Loop</th><th scope="col">Time</th><th scope="col">Notes</th></tr>
  </thead>
  <tbody class="divide-y">
    <tr><th scope="row">for</th><td class="text-right whitespace-nowrap">1.2 ms</td><td rowspan="2">the fastest two</td></tr>
    <tr><th scope="row">while</th><td class="text-right whitespace-nowrap">1.3 ms</td></tr>
    <tr><th scope="row">forEach</th><td class="text-right">2.9 ms</td><td><p>One call per item.</p><p>See <a href="/lessons/7">lesson 7</a>.</p></td></tr>
  </tbody>
  <tfoot>
    <tr><td class="text-sm text-gray-600" colspan="3">Measured with <em>Node 24</em> on a laptop.</td></tr>
  </tfoot>
</table>
<table>
  <tr><th colspan="2" rowspan="1">Shortcut</th></tr>
  <tr><td><kbd>Ctrl</kbd>+<kbd>S</kbd></td><td>Save</td></tr>
</table>`,

  /** Boxes, quotations, solutions to reveal and code. */
  blocks: `
<div class="p-4 my-4 bg-gray-100 border border-gray-300 rounded">
  <p class="font-semibold">Tip</p>
  <p>Read the error message <span class="font-bold underline">before</span> you search for it.</p>
</div>
<div class="overflow-x-auto">Wide content scrolls <span class="whitespace-nowrap">sideways here</span>.</div>
<blockquote class="italic" cite="https://example.com/dijkstra">
  <p>Simplicity is prerequisite for reliability.</p>
  <p>— Edsger W. Dijkstra</p>
</blockquote>
<h3>Exercise</h3>
<p>Print every item of a list.</p>
<details class="my-2" open>
  <summary>Solution</summary>
  <p>Use a <code>for…of</code> loop:</p>
  <pre><code>for (const item of items) {
  console.log(item)
}</code></pre>
</details>
<details>
  <summary>Hint</summary>
  Think about <code>break</code> and <code>continue</code>.
</details>
<pre class="overflow-x-auto">$ node loop.js
1
2</pre>`,

  /** Images, figures and each video provider's player, pasted as the providers give them. */
  media: `
<h2>Watch, then read</h2>
<iframe width="560" height="315" src="https://www.youtube.com/embed/dQw4w9WgXcQ?si=tracking&amp;start=30" title="YouTube video player" frameborder="0" allow="accelerometer; autoplay; clipboard-write; encrypted-media; gyroscope; picture-in-picture; web-share" referrerpolicy="strict-origin-when-cross-origin" allowfullscreen></iframe>
<p>The same lesson on Vimeo: <iframe src="https://player.vimeo.com/video/76979871?h=8272103f6e&amp;autoplay=1" width="640" height="360" frameborder="0" allow="autoplay; fullscreen; picture-in-picture" allowfullscreen></iframe></p>
<figure class="mx-auto">
  <img class="w-full" src="https://cdn.example.com/loop.png" alt="A flow chart of a loop" title="A loop" width="640" height="360">
  <figcaption class="text-sm text-center">Figure 1: the body runs while the condition holds.</figcaption>
</figure>
<figure>
  <iframe src="https://youtube-nocookie.com/embed/a_b-C?end=90"></iframe>
  <figcaption>The same idea, animated.</figcaption>
</figure>
<p>An icon <img src="/icons/info.svg" alt="info" width="16" height="16"> marks each tip.</p>
<img src="/images/summary.png" alt="The week in one diagram">`
} as const satisfies Readonly<Record<string, string>>

/** The name of a benign course document. */
export type BenignCourseDocument = keyof typeof benignCourseHtml
