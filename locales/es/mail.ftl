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
mail-subject-game = [Djambi] { $what }: { $players }
mail-subject-plain = [Djambi] { $what }
mail-intro-game = { $what }.
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
mail-line-by-mail = Jugadas condicionales por correo: responde a { $address } con una línea en la primera línea, como if B G8-E6 Y H3-F5 G C2-D3 then C7-D7 (las jugadas que esperas de los rivales y luego tu respuesta).
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
mail-reset-ask = Alguien (tú, esperamos) pidió restablecer la contraseña de la cuenta de Djambi { $name }. Este enlace sirve una vez, durante una hora:
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
confirm-done = Tu dirección { $email } está confirmada: los correos de notificación y las jugadas por correo ya funcionan.
confirm-open = Abrir Djambi
confirm-invalid = Este enlace no funciona: es desconocido, ya se usó o ha caducado, o la dirección de la cuenta cambió desde entonces. Pide un correo nuevo desde la página de ajustes.

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
move-answer-stale = La partida ha avanzado desde este correo: tu respuesta no se jugó.
move-answer-grammar = Responde al correo de tu turno con una de estas órdenes en la primera línea (no se lee nada más): una jugada en la notación de la partida, como C8-D7 o B8xE5/F4 (mayúsculas o minúsculas), resign, draw offer, draw accept, draw decline.
move-answer-empty = Tu respuesta no tenía texto.
move-answer-already-played = Este correo de turno ya fue respondido: una dirección de respuesta juega una sola vez. Espera tu próximo correo de turno.
move-answer-expired = Esta dirección de respuesta ha caducado. Juega en la página de la partida, o espera tu próximo correo de turno.
move-answer-locked = Se rechazaron demasiadas respuestas a este correo de turno, así que tu dirección está bloqueada. Se envió un nuevo correo de turno con una dirección nueva.
move-answer-played = Jugado: { $seat } { $move }
move-answer-resigned = { $seat } abandona.
move-answer-draw-offered = { $seat } ofrece tablas.
move-answer-draw-accepted = { $seat } acepta las tablas.
move-answer-draw-declined = { $seat } rechaza las tablas.
move-answer-ended = La partida terminó: { $result }
move-answer-illegal = «{ $line }» no es legal aquí: { $detail }.
move-answer-to-move = Juega ahora: { $seat }
move-answer-to-move-deadline = Juega ahora: { $seat }, plazo { $deadline }
move-answer-status = Estado: { $status }
move-answer-board = Tablero: { $url }
move-answer-game = Partida: { $url }
move-answer-piece-moves = Jugadas legales de la pieza en { $square }: { $moves }
move-answer-piece-stuck = La pieza en { $square } no puede moverse (o no es tuya). Tienes { $count } jugadas legales; míralas en la página de la partida.
move-answer-all-moves = Jugadas legales: { $moves }
move-answer-footer = Esto responde a tu correo { $message } al correo de turno de la partida { $game } (asiento { $seat }, versión { $version }).
move-answer-effects = Lo que pasó: { $effects }
move-answer-turn-stays = Sigue siendo tu turno: responde de nuevo al mismo correo de turno con tu jugada.
move-answer-too-long = La primera línea tiene más de { $max } caracteres.
move-answer-not-a-command = «{ $line }» no es una jugada (como C8-D7) ni resign, draw offer, draw accept, draw decline.
move-answer-not-your-turn = No es tu turno.
move-answer-seat-out = Tu puesto está fuera del juego.
move-answer-draw-pending = Ya hay una oferta de tablas: acéptala o recházala.
move-answer-no-draw-offer = No hay ninguna oferta de tablas.
move-answer-draw-already-accepted = Ya aceptaste esta oferta de tablas.
move-answer-refused = La partida no lo permite ahora.
move-answer-tries-left = Tu jugada no se jugó; responde de nuevo al correo de turno ({ $left ->
    [one] queda { $left } intento
   *[other] quedan { $left } intentos
} con esta dirección).
move-error-game-over = la partida ha terminado
move-error-empty-square = { $square } está vacía
move-error-not-your-piece = la pieza en { $square } no la mueve { $seat }
move-error-unreachable = la pieza en { $from } no puede llegar a { $to } ni actuar allí
move-error-missing-placement = esta jugada debe decir dónde va el { $what } (>casilla)
move-error-forbidden-placement = el { $what } no se puede colocar en { $square }
move-error-unexpected-placement = esta jugada no coloca nada, así que no lleva >casilla
move-error-missing-exit = una pieza que entra en la presidencia para actuar debe salir de ella (/casilla)
move-error-forbidden-exit = la pieza no puede salir de la presidencia a { $square }
move-error-unexpected-exit = solo una jugada que entra en la presidencia para actuar tiene salida
move-error-forbidden-victim = el reportero no puede matar en { $square }
move-error-unexpected-victim = solo un reportero nombra una víctima
move-error-missing-victim = el reportero debe matar una pieza junto a { $square } (xcasilla)
move-error-what-corpse = cadáver
move-error-what-lifted-piece = pieza levantada
effect-piece = { $kind } { $seat }
effect-corpse = { $kind } { $seat } muerto
effect-moved = { $piece } { $from }-{ $to }
effect-killed = { $piece } muerto en { $square }
effect-placed = { $piece } llevado de { $from } a { $to }
effect-surrounded = { $piece } rodeado en { $square } y muerto
effect-control-seat = las piezas de { $party } pasan a { $seat }
effect-control-hostage = las piezas de { $party } son ahora rehenes
effect-control-orphaned = las piezas de { $party } quedan ahora huérfanas
effect-eliminated = { $seat } queda fuera del juego
effect-passed = { $seat } no tiene jugadas legales y pasa
result-win = gana { $seats } ({ $reason })
result-draw = tablas entre { $seats } ({ $reason })
result-reason-last-seat-standing = último puesto en juego
result-reason-resignation = por abandono
result-reason-mutual-elimination = eliminación mutua
result-reason-no-legal-moves = no quedan jugadas legales
result-reason-draw-agreed = tablas acordadas
result-reason-timeout = por tiempo
# Conditional moves (api/src/games/conditional.rs).
mail-kind-conditional_played = Se jugó tu jugada condicional
mail-kind-conditional_discarded = Se descartaron tus jugadas condicionales
move-answer-conditional-stored = Jugadas condicionales guardadas: { $line }
move-answer-conditional-refused = Tus jugadas condicionales no se guardaron: { $detail }
move-answer-conditional-since = La partida ha avanzado desde el correo al que respondes: la línea se compara con las jugadas hechas desde entonces y se te avisará de lo que pase con ella.
move-answer-reply-line = Para guardar jugadas condicionales, responde a este correo con una línea en la primera línea, como if B G8-E6 Y H3-F5 G C2-D3 then C7-D7 (las jugadas que esperas de los rivales y luego tu respuesta).
move-answer-title-conditional = Jugadas condicionales
move-answer-conditional-move-first = «{ $line }» solo contiene jugadas condicionales, pero te toca jugar: una respuesta a un correo de turno empieza por tu jugada. Escribe primero tu jugada y luego la línea, como C8-D7 if B G8-E6 Y H3-F5 G C2-D3 then C7-D7 (juega C8-D7 y luego guarda la línea desde el turno siguiente). No se jugó ni se guardó nada.
# Las notificaciones de un torneo (api/src/tournaments/notify.rs, compuestas en email.rs).
mail-kind-tournament_started = El torneo ha empezado
mail-kind-tournament_round = Tu próxima ronda está emparejada
mail-kind-tournament_finished = El torneo ha terminado
mail-kind-tournament_cancelled = El torneo se ha cancelado
mail-subject-tournament = [Djambi] { $what }: { $name }
mail-tournament-intro = { $what }: { $name }.
mail-tournament-started = La primera ronda está emparejada; el correo de tu ronda indica tu partida.
mail-tournament-round = Ronda { $round }: juegas con { $seat }.
mail-tournament-place = Quedaste en el puesto { $place }.º con { $points } { $points ->
    [one] punto
   *[other] puntos
}.
mail-tournament-place-of = Quedaste en el puesto { $place }.º de { $players } con { $points } { $points ->
    [one] punto
   *[other] puntos
}.
mail-tournament-cancelled-organiser = el organizador lo canceló
mail-tournament-cancelled-too_few_players = se inscribieron muy pocos jugadores
mail-open-tournament = El torneo: { $url }
# Las notificaciones Web Push (api/src/notifications/push.rs): un título por tipo, un texto corto.
push-title-your_turn = Te toca jugar
push-title-reminder = Tu plazo se acerca
push-title-timeout = Un puesto se quedó sin tiempo
push-title-chief_killed = Han matado a tu líder
push-title-seat_eliminated = Has sido eliminado
push-title-game_started = La partida ha empezado
push-title-game_ended = La partida ha terminado
push-title-draw_offered = Se ofrecen tablas
push-title-message = Un mensaje nuevo
push-title-webhook_disabled = Se ha desactivado un webhook
push-title-conditional_played = Se jugó tu jugada condicional
push-title-conditional_discarded = Se descartaron tus jugadas condicionales
push-title-tournament_started = El torneo ha empezado
push-title-tournament_round = Tu próxima ronda está emparejada
push-title-tournament_finished = El torneo ha terminado
push-title-tournament_cancelled = El torneo se ha cancelado
push-title-other = Noticias de Djambi
push-body-game = Partida { $game }
push-body-tournament-round = { $name }: ronda { $round }
push-body-tournament-place = { $name }: quedaste en el puesto { $place }.º
