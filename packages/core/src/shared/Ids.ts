/**
 * What every identifier shares: the largest id a table holds (PostgreSQL `integer`).
 *
 * @since 0.3.0
 */
export const maxId = 2_147_483_647
