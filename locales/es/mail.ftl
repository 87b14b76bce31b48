# Los correos de notificación (api/src/notifications/email.rs).
mail-kind-your_turn = Te toca jugar
mail-kind-reminder = Recordatorio: tu plazo se acerca
mail-kind-timeout = Un puesto se quedó sin tiempo
mail-kind-chief_killed = Han matado a tu líder
mail-kind-seat_eliminated = Has sido eliminado
mail-kind-game_started = La partida ha empezado
mail-kind-game_ended = La partida ha terminado
mail-kind-draw_offered = Se ofrecen tablas
mail-kind-message = Un mensaje en la mesa
mail-kind-webhook_disabled = Se ha desactivado un webhook
mail-kind-other = Noticias de Djambi
mail-subject-game = [Djambi] { $what } en la partida { $game } ({ $players })
mail-subject-plain = [Djambi] { $what }
mail-intro-game = { $what } en la partida { $game }.
mail-players = Jugadores: { $players }
mail-to-move = Juega: { $seat } ({ $player })
mail-to-move-deadline = Juega: { $seat } ({ $player }), plazo { $deadline } (dentro de { $left })
mail-to-move-overdue = Juega: { $seat } ({ $player }), plazo { $deadline } (vencido)
mail-status = Estado: { $status }
mail-status-open = esperando jugadores
mail-status-active = en juego
mail-status-finished = terminada
mail-wrote-table = { $seat } escribió a la mesa:
mail-wrote-private = { $seat } escribió en privado a { $seats }:
mail-reminder-before = Este recordatorio llega { $before } antes del plazo.
mail-last-moves = Últimas jugadas: { $moves }
# Los comandos por correo (resign, draw offer, …) siguen en inglés: el servidor los lee así.
mail-move-by-mail = Jugar por correo: responde a { $address } con tu jugada (p. ej. C8-D7), resign, draw offer, draw accept o draw decline en la primera línea.
mail-open-game = Abrir la partida: { $url }
mail-board = Tablero: { $url }
mail-endpoint = Dirección: { $url }
mail-reason = Motivo: { $reason }
mail-stop = Dejar de recibir estos correos: { $url }
mail-note = (Notificación { $id } del { $at })
mail-digest-subject = [Djambi] Tu resumen del { $day }: { $count ->
    [one] un elemento
   *[other] { $count } elementos
}
mail-digest-intro = Tus notificaciones de Djambi del { $day } ({ $count ->
    [one] un elemento
   *[other] { $count } elementos
}).
mail-hello = Hola, { $name }:
mail-verify-subject = [Djambi] Confirma tu dirección de correo
mail-verify-ask = Confirma que esta es la dirección de tu cuenta de Djambi { $name }: abre este enlace y pulsa el botón (sirve una vez, durante 48 horas):
mail-verify-until = Hasta entonces no se envía aquí ningún correo de notificación y se rechazan las jugadas por correo.
mail-verify-ignore = Si no te registraste, ignora este correo: no se te enviará nada.
mail-reset-subject = [Djambi] Restablece tu contraseña
mail-reset-ask = Alguien (tú, esperamos) pidió restablecer la contraseña de la cuenta de Djambi { $name }. Este código sirve una vez, durante una hora:
mail-reset-how = Elige una contraseña nueva con él: POST { $url }
mail-reset-with = con { $json }. Todas las sesiones y los tokens de acceso personal de la cuenta terminan entonces.
mail-reset-ignore = Si no lo pediste, ignora este correo: tu contraseña sigue igual.
mail-changed-subject = [Djambi] Tu contraseña se ha restablecido
mail-changed-body = La contraseña de tu cuenta de Djambi { $name } se restableció el { $at } con un enlace enviado a esta dirección. Todas las sesiones y los tokens de acceso personal de la cuenta han terminado.
mail-changed-warn = Si no fuiste tú, restablece la contraseña enseguida y revisa la dirección de tu cuenta.
mail-account-subject = [Djambi] Sobre tu cuenta
mail-account-body = Noticias sobre tu cuenta de Djambi.
unsubscribe-title = Djambi: dejar de recibir correos
unsubscribe-question = ¿Dejar de recibir todos los correos de notificación de Djambi?
unsubscribe-button = Darme de baja
confirm-title = Djambi: confirma tu dirección
confirm-question = ¿Confirmar que esta dirección es tuya?
confirm-button = Confirmar

# Respuestas a las jugadas por correo (api/src/mail_moves/receive.rs). Las órdenes no se traducen.
move-answer-subject = [Djambi] { $title } (partida { $game })
move-answer-title-used = Ya jugado
move-answer-title-expired = Esta dirección de respuesta ha caducado
move-answer-title-locked = Esta dirección de respuesta está bloqueada
move-answer-title-game-over = La partida ha terminado
move-answer-title-stale = La partida ha avanzado
move-answer-title-empty = Nada que jugar
move-answer-title-grammar = Respuesta no entendida
move-answer-title-played = Jugado
move-answer-title-illegal = Jugada ilegal
move-answer-title-refused = No es posible
move-answer-game-over = La partida ha terminado.
move-answer-stale = La partida ha avanzado desde este correo: su respuesta no se jugó.
move-answer-grammar = Responda al correo de su turno con una de estas órdenes en la primera línea (no se lee nada más): una jugada en la notación de la partida, como C8-D7 o B8xE5/F4 (mayúsculas o minúsculas), resign, draw offer, draw accept, draw decline.
move-answer-empty = Su respuesta no tenía texto.
move-answer-already-played = Este correo de turno ya fue respondido: una dirección de respuesta juega una sola vez. Espere su próximo correo de turno.
move-answer-expired = Esta dirección de respuesta ha caducado. Juegue en la página de la partida, o espere su próximo correo de turno.
move-answer-locked = Se rechazaron demasiadas respuestas a este correo de turno, así que su dirección está bloqueada. Se envió un nuevo correo de turno con una dirección nueva.
move-answer-played = Jugado: { $seat } { $move }
move-answer-resigned = { $seat } abandona.
move-answer-draw-offered = { $seat } ofrece tablas.
move-answer-draw-accepted = { $seat } acepta las tablas.
move-answer-draw-declined = { $seat } rechaza las tablas.
move-answer-ended = La partida terminó: { $result }
move-answer-effect = Efecto: { $effect }
move-answer-illegal = { $line } no es legal aquí: { $detail }.
move-answer-to-move = Juega ahora: { $seat }
move-answer-to-move-deadline = Juega ahora: { $seat }, plazo { $deadline }
move-answer-status = Estado: { $status }
move-answer-board = Tablero: { $url }
move-answer-game = Partida: { $url }
move-answer-piece-moves = Jugadas legales de la pieza en { $square }: { $moves }
move-answer-piece-stuck = La pieza en { $square } no puede moverse (o no es suya). Tiene { $count } jugadas legales; véalas en la página de la partida.
move-answer-all-moves = Jugadas legales: { $moves }
move-answer-footer = Esto responde a su correo { $message } al correo de turno de la partida { $game } (asiento { $seat }, versión { $version }).
move-answer-tries-left = Su jugada no se jugó; responda de nuevo al correo de turno (quedan { $left } intentos con esta dirección).
