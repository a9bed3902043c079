/**
 * Whether the Studio may use the admin API now, signing in and signing out. The answer
 * is the API's: an admin-only read (the drafts filter of the course list) succeeds for an
 * admin and is a 401 or 403 for anyone else.
 */
import { CoursekitError } from "@coursekit/client"
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query"
import { studioClient } from "../../app/studioClient.ts"

export const adminAccessKey = ["admin-access"] as const

const probeAdminAccess = async (): Promise<boolean> => {
  try {
    await studioClient.courses.list({ query: { limit: 1, status: "draft" } })
    return true
  } catch (error) {
    if (error instanceof CoursekitError && (error.status === 401 || error.status === 403)) return false
    throw error
  }
}

export const useAdminAccess = () => useQuery({ queryKey: adminAccessKey, queryFn: probeAdminAccess, staleTime: Infinity })

export const useSignIn = () => {
  const queries = useQueryClient()
  return useMutation({
    mutationFn: (token: string) => studioClient.session.signIn({ payload: { token } }),
    onSuccess: () => queries.invalidateQueries()
  })
}

export const useSignOut = () => {
  const queries = useQueryClient()
  return useMutation({
    mutationFn: () => studioClient.session.signOut(),
    onSuccess: () => {
      // Signed out: the sign-in form, and nothing the session read left in memory.
      queries.setQueryData(adminAccessKey, false)
      queries.removeQueries({ predicate: (query) => query.queryKey[0] !== adminAccessKey[0] })
    }
  })
}
