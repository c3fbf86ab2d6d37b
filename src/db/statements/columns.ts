/**
 * Column lists checked against their table's row type (db/tables): `everyColumn<AlertsTable>()([...])` is
 * the list as given, and fails to compile when a column of the table is missing from it (the call then
 * asks for a second argument, typed with the missing column's name) or when it names one the table lacks.
 */
export function everyColumn<T>() {
  return <const C extends ReadonlyArray<keyof T & string>>(
    columns: C,
    ..._complete: [Exclude<keyof T, C[number]>] extends [never]
      ? []
      : [missingColumn: Exclude<keyof T, C[number]>]
  ): C => columns;
}
