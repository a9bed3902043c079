/** One upload's progress bar: its name, the value's words (percent, or percent, speed and time left) and the bar. */
import type { ReactNode } from "react"
import { ProgressBar } from "react-aria-components"

export const UploadProgress = ({ label, percent, valueLabel, title }: {
  /** The bar's accessible name ("Uploading thumbnail"). */
  readonly label: string
  readonly percent: number
  /** Instead of the percent alone. */
  readonly valueLabel?: string
  /** Shown above the bar; the label when absent. */
  readonly title?: ReactNode
}) => (
  <ProgressBar value={percent} aria-label={label} className="upload-progress" {...(valueLabel === undefined ? {} : { valueLabel })}>
    {({ percentage, valueText }) => (
      <>
        <span className="upload-name">{title ?? label}</span>
        <span className="value">{valueText}</span>
        <div className="bar"><div className="fill" style={{ width: `${percentage ?? 0}%` }} /></div>
      </>
    )}
  </ProgressBar>
)
