/** The Map page's drawing panels' words (map-draw.ts: drawing, editing and splitting a paddock). */
import type { Message } from '../../../../lib/message-format.ts';

export const EN = {
  length: 'Length',
  area: 'Area',
  draw_title: 'Draw a paddock',
  draw_help: 'Tap each corner of the paddock on the map; tap the first corner again, or Finish, to close it.',
  finish: 'Finish',
  undo_corner: 'Undo corner',
  cancel: 'Cancel',
  new_title: 'New paddock',
  name: 'Name',
  rest_target_days: 'Rest target (days)',
  save_paddock: 'Save paddock',
  edit_title: 'Edit {paddock}',
  edit_help: 'Drag a corner to move it; drag the point in the middle of an edge to add a corner.',
  save_outline: 'Save outline',
  outline_saved: 'Outline saved',
  split_title: 'Split {paddock}',
  split_help: 'Draw the new fence line: tap outside the paddock, across it, and outside again; then Finish.',
  refused_crossing:
    'The line must cross the paddock’s edge exactly twice: draw it from outside, across, to outside.',
  refused_holes: 'Only a paddock drawn as one outline without holes can be split.',
  draw_again: 'Draw again',
  split_parts: 'The blue part keeps the name {paddock}; the orange part becomes a new paddock.',
  split_form: 'Split the paddock',
  new_name: 'Name of the new paddock',
  new_name_value: '{paddock} 2',
  split: 'Split',
  // The map's own hints beside the cursor while drawing (draw.ts): English as the drawing library says them.
  hint_first: 'Click to place first vertex',
  hint_continue: 'Click to continue drawing',
  hint_finish_line: 'Click any existing marker to finish',
  hint_finish_polygon: 'Click first marker to finish',
} as const satisfies Record<string, Message>;

export const ES: Record<keyof typeof EN, Message> = {
  length: 'Longitud',
  area: 'Superficie',
  draw_title: 'Dibujar un potrero',
  draw_help:
    'Toque cada esquina del potrero en el mapa; toque de nuevo la primera esquina, o Terminar, para cerrarlo.',
  finish: 'Terminar',
  undo_corner: 'Deshacer esquina',
  cancel: 'Cancelar',
  new_title: 'Potrero nuevo',
  name: 'Nombre',
  rest_target_days: 'Descanso objetivo (días)',
  save_paddock: 'Guardar potrero',
  edit_title: 'Editar {paddock}',
  edit_help:
    'Arrastre una esquina para moverla; arrastre el punto del medio de un lado para agregar una esquina.',
  save_outline: 'Guardar contorno',
  outline_saved: 'Contorno guardado',
  split_title: 'Dividir {paddock}',
  split_help:
    'Dibuje la nueva línea de cerca: toque fuera del potrero, a través de él y fuera otra vez; luego Terminar.',
  refused_crossing:
    'La línea debe cruzar el borde del potrero exactamente dos veces: dibújela desde fuera, a través, hasta fuera.',
  refused_holes: 'Solo se puede dividir un potrero dibujado como un único contorno sin huecos.',
  draw_again: 'Dibujar de nuevo',
  split_parts: 'La parte azul conserva el nombre {paddock}; la parte naranja pasa a ser un potrero nuevo.',
  split_form: 'Dividir el potrero',
  new_name: 'Nombre del potrero nuevo',
  new_name_value: '{paddock} 2',
  split: 'Dividir',
  hint_first: 'Toque para colocar la primera esquina',
  hint_continue: 'Toque para seguir dibujando',
  hint_finish_line: 'Toque una esquina ya puesta para terminar',
  hint_finish_polygon: 'Toque la primera esquina para terminar',
};
