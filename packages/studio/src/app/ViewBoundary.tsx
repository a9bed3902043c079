/**
 * Where a view that cannot be shown ends: its chunk failed to load (the Studio was
 * rebuilt since this page was opened, so its old files are gone; the network failed) or
 * it failed to render. It says so, with "Reload", instead of leaving an empty page; a
 * move to another view (`resetKey`) tries again.
 */
import { Component, type ReactNode } from "react"
import { Button } from "react-aria-components"

interface Props {
  /** The view shown: when it changes, a failure of the previous one is forgotten. */
  readonly resetKey: string
  readonly children: ReactNode
}

type State = { readonly failed: false } | { readonly failed: true; readonly error: unknown }

export class ViewBoundary extends Component<Props, State> {
  override state: State = { failed: false }

  static getDerivedStateFromError(error: unknown): State {
    return { failed: true, error }
  }

  override componentDidUpdate(previous: Props) {
    if (this.state.failed && previous.resetKey !== this.props.resetKey) this.setState({ failed: false })
  }

  override render() {
    if (!this.state.failed) return this.props.children
    const { error } = this.state
    return (
      <main>
        <p role="alert" className="error">
          This view could not be shown ({error instanceof Error ? error.message : String(error)}). If the Studio was
          updated since this page was opened, reloading the page loads the new one.
        </p>
        <Button onPress={() => window.location.reload()}>Reload</Button>
      </main>
    )
  }
}
