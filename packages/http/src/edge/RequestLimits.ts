/**
 * Limits on what a request may carry.
 *
 * @since 0.1.0
 */
import { ByteSize } from "effect"

/** Largest request body read: the 1 MB HTML limit plus JSON overhead; larger is a 413. */
export const maxBodySize = ByteSize.mebibytes(2)
