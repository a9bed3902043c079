/** "New course": a dialog asking for the title; the course opens in the editor once created. */
import { useState } from "react"
import { Button, Dialog, DialogTrigger, Form, Heading, Input, Label, Modal, TextField } from "react-aria-components"
import { navigate } from "../../app/route.ts"
import { problemMessage } from "../../shared/problemMessage.ts"
import { useCreateCourse } from "./courseQueries.ts"

export const NewCourseDialog = () => {
  const [title, setTitle] = useState("")
  const create = useCreateCourse()
  return (
    <DialogTrigger onOpenChange={(open) => open || (setTitle(""), create.reset())}>
      <Button className="primary">New course</Button>
      <Modal className="modal" isDismissable>
        <Dialog>
          {({ close }) => (
            <Form
              onSubmit={(event) => {
                event.preventDefault()
                create.mutate(title.trim(), {
                  onSuccess: (course) => {
                    close()
                    navigate({ _tag: "course", id: course.id })
                  }
                })
              }}
            >
              <Heading slot="title">New course</Heading>
              <TextField value={title} onChange={setTitle} isRequired autoFocus maxLength={200}>
                <Label>Title</Label>
                <Input />
              </TextField>
              {create.isError && <p role="alert" className="error">{problemMessage(create.error)}</p>}
              <div className="actions">
                <Button onPress={close}>Cancel</Button>
                <Button type="submit" className="primary" isDisabled={create.isPending}>Create</Button>
              </div>
            </Form>
          )}
        </Dialog>
      </Modal>
    </DialogTrigger>
  )
}
