/** The Map page's import panel's words (map-import.ts: paddocks from KML, GPX or GeoJSON). */
import type { Message } from '../../../../lib/message-format.ts';

export const EN = {
  title: 'Import paddocks',
  help: 'A file from Google Earth (KML), a GPS (GPX: a closed track becomes a paddock) or a GIS (GeoJSON).',
  file: 'File',
  created: { one: 'Created {count} paddock.', other: 'Created {count} paddocks.' },
  in_file: 'Paddocks in the file',
  name: 'Name',
  acres: 'Acres',
  result: 'Result',
  'action.create': 'created',
  'action.skip': 'skipped',
  'action.refuse': 'refused',
  check: 'Check: {warning}',
  warned: {
    one: '{count} outline looks wrong (see “Check:” above): it can still be created; look at the map first.',
    other:
      '{count} outlines look wrong (see “Check:” above): they can still be created; look at the map first.',
  },
  refused: {
    one: '{count} outline is refused: fix the file and choose it again. Nothing is created until every outline passes.',
    other:
      '{count} outlines are refused: fix the file and choose it again. Nothing is created until every outline passes.',
  },
  create: { one: 'Create {count} paddock', other: 'Create {count} paddocks' },
} as const satisfies Record<string, Message>;

export const ES: Record<keyof typeof EN, Message> = {
  title: 'Importar potreros',
  help: 'Un archivo de Google Earth (KML), de un GPS (GPX: un recorrido cerrado se convierte en potrero) o de un SIG (GeoJSON).',
  file: 'Archivo',
  created: { one: 'Se creó {count} potrero.', other: 'Se crearon {count} potreros.' },
  in_file: 'Potreros del archivo',
  name: 'Nombre',
  acres: 'Acres',
  result: 'Resultado',
  'action.create': 'creado',
  'action.skip': 'omitido',
  'action.refuse': 'rechazado',
  check: 'Revisar: {warning}',
  warned: {
    one: '{count} contorno parece incorrecto (vea «Revisar:» arriba): igual se puede crear; mire primero el mapa.',
    other:
      '{count} contornos parecen incorrectos (vea «Revisar:» arriba): igual se pueden crear; mire primero el mapa.',
  },
  refused: {
    one: 'Se rechaza {count} contorno: corrija el archivo y vuelva a elegirlo. No se crea nada hasta que todos los contornos sean válidos.',
    other:
      'Se rechazan {count} contornos: corrija el archivo y vuelva a elegirlo. No se crea nada hasta que todos los contornos sean válidos.',
  },
  create: { one: 'Crear {count} potrero', other: 'Crear {count} potreros' },
};
