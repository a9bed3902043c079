/** A record's state as the author reads it: Draft, Published, or Scheduled with the moment in their time zone. */
interface Props {
  readonly status: "draft" | "published" | undefined
  readonly publishAt: { readonly epochMilliseconds: number } | string | null | undefined
}

const millisOf = (at: Props["publishAt"]) =>
  at === null || at === undefined ? undefined : typeof at === "string" ? Date.parse(at) : at.epochMilliseconds

export const stateOf = ({ status, publishAt }: Props): { readonly label: string; readonly tag: "draft" | "scheduled" | "published" } => {
  if (status !== "published") return { label: "Draft", tag: "draft" }
  const at = millisOf(publishAt)
  if (at !== undefined && at > Date.now()) {
    const when = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" }).format(at)
    return { label: `Scheduled for ${when}`, tag: "scheduled" }
  }
  return { label: "Published", tag: "published" }
}

export const PublishState = (props: Props) => {
  const { label, tag } = stateOf(props)
  return <span className={`state state-${tag}`}>{label}</span>
}
