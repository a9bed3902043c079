/** The sign-in form: an admin token, pasted once; the server keeps the session in a cookie. */
import { useState } from "react"
import { Button, Form, Input, Label, TextField } from "react-aria-components"
import { problemMessage } from "../../shared/problemMessage.ts"
import { useSignIn } from "./sessionQueries.ts"

export const SignIn = () => {
  const [token, setToken] = useState("")
  const signIn = useSignIn()
  return (
    <main className="sign-in">
      <h1>Coursekit Studio</h1>
      <Form
        onSubmit={(event) => {
          event.preventDefault()
          signIn.mutate(token.trim())
        }}
      >
        <TextField value={token} onChange={setToken} isRequired type="password" autoComplete="current-password">
          <Label>Admin token</Label>
          <Input />
        </TextField>
        <Button type="submit" isDisabled={signIn.isPending}>Sign in</Button>
        {signIn.isError && <p role="alert" className="error">{problemMessage(signIn.error)}</p>}
      </Form>
      <p className="hint">
        The token is the server's admin token (<code>ADMIN_TOKENS</code>, or the one it printed at its first start).
      </p>
    </main>
  )
}
