# Notification mails (api/src/notifications/email.rs). What each kind of notification says.
mail-kind-your_turn = Your turn
mail-kind-reminder = Reminder: your deadline is near
mail-kind-timeout = A seat ran out of time
mail-kind-chief_killed = Your chief was killed
mail-kind-seat_eliminated = You were eliminated
mail-kind-game_started = The game started
mail-kind-game_ended = The game ended
mail-kind-draw_offered = A draw is offered
mail-kind-message = A message at the table
mail-kind-webhook_disabled = A webhook endpoint was disabled
mail-kind-other = News from Djambi
mail-subject-game = [Djambi] { $what }: { $players }
mail-subject-plain = [Djambi] { $what }
mail-intro-game = { $what }.
mail-players = Players: { $players }
mail-to-move = To move: { $seat } ({ $player })
mail-to-move-deadline = To move: { $seat } ({ $player }), deadline { $deadline } (in { $left })
mail-to-move-overdue = To move: { $seat } ({ $player }), deadline { $deadline } (passed)
mail-status = Status: { $status }
mail-status-open = waiting for players
mail-status-active = being played
mail-status-finished = finished
mail-wrote-table = { $seat } wrote to the table:
mail-wrote-private = { $seat } wrote privately to { $seats }:
mail-reminder-before = This reminder comes { $before } before the deadline.
mail-last-moves = Last moves: { $moves }
# The mail commands (resign, draw offer, …) stay in English: the server reads them so.
mail-move-by-mail = Move by mail: reply to { $address } with your move (e.g. C8-D7), resign, draw offer, draw accept or draw decline on the first line.
mail-line-by-mail = Conditional moves by mail: reply to { $address } with a line on the first line, like if B G8-E6 Y H3-F5 G C2-D3 then C7-D7 (the rivals' moves you expect, then your answer).
mail-open-game = Open the game: { $url }
mail-board = Board: { $url }
mail-endpoint = Endpoint: { $url }
mail-reason = Reason: { $reason }
mail-stop = Stop these mails: { $url }
mail-note = (Notification { $id } at { $at })
# The daily digest.
mail-digest-subject = [Djambi] Your daily digest of { $day }: { $count ->
    [one] one item
   *[other] { $count } items
}
mail-digest-intro = Your Djambi notifications of { $day } ({ $count ->
    [one] one item
   *[other] { $count } items
}).
# Account mails (not notifications: they cannot be turned off).
mail-hello = Hello { $name },
mail-verify-subject = [Djambi] Confirm your e-mail address
mail-verify-ask = Please confirm that this is the address of your Djambi account { $name }: open this link and press the button (it works once, for 48 hours):
mail-verify-until = Until then no notification mail is sent here, and moves by mail are refused.
mail-verify-ignore = If you did not register, ignore this mail: nothing will be sent to you.
mail-reset-subject = [Djambi] Reset your password
mail-reset-ask = Someone (you, we hope) asked to reset the password of the Djambi account { $name }. This link works once, for one hour:
mail-reset-ignore = If you did not ask for this, ignore this mail: your password stays as it is.
mail-changed-subject = [Djambi] Your password was reset
mail-changed-body = The password of your Djambi account { $name } was reset on { $at } with a link sent to this address. Every session and personal access token of the account has ended.
mail-changed-warn = If this was not you, reset the password again at once and check the address of your account.
mail-account-subject = [Djambi] About your account
mail-account-body = News about your Djambi account.
# The pages that mail links open (no login).
unsubscribe-title = Djambi: stop mails
unsubscribe-question = Stop all notification mails from Djambi?
unsubscribe-button = Unsubscribe
confirm-title = Djambi: confirm your address
confirm-question = Confirm that this address is yours?
confirm-button = Confirm
confirm-done = Your address { $email } is confirmed: notification mails and moves by mail now work.
confirm-open = Open Djambi
confirm-invalid = This link does not work: it is unknown, used or expired, or the account's address changed since. Ask for a new mail from the settings page.

# Answers to moves by mail (api/src/mail_moves/receive.rs). Commands stay canonical.
move-answer-subject = [Djambi] { $title } (game { $game })
move-answer-title-used = Already played
move-answer-title-expired = This reply address has expired
move-answer-title-locked = This reply address is locked
move-answer-title-game-over = The game is over
move-answer-title-stale = The game moved on
move-answer-title-empty = Nothing to play
move-answer-title-grammar = Not understood
move-answer-title-played = Played
move-answer-title-illegal = Illegal move
move-answer-title-refused = Not possible
move-answer-game-over = The game is over.
move-answer-stale = The game moved on since this mail: your reply was not played.
move-answer-grammar = Answer the turn mail with one of these on the first line (nothing else is read): a move in the notation of the game, like C8-D7 or B8xE5/F4 (any case), resign, draw offer, draw accept, draw decline.
move-answer-empty = Your reply had no text.
move-answer-already-played = This turn mail was already answered: a reply address plays once. Wait for your next turn mail.
move-answer-expired = This reply address has expired. Play on the game page, or wait for your next turn mail.
move-answer-locked = Too many replies to this turn mail were refused, so its address is locked. A fresh turn mail with a new address was sent.
move-answer-played = Played: { $seat } { $move }
move-answer-resigned = { $seat } resigned.
move-answer-draw-offered = { $seat } offers a draw.
move-answer-draw-accepted = { $seat } accepts the draw.
move-answer-draw-declined = { $seat } declines the draw.
move-answer-ended = The game ended: { $result }
move-answer-illegal = “{ $line }” is not legal here: { $detail }.
move-answer-to-move = To move now: { $seat }
move-answer-to-move-deadline = To move now: { $seat }, deadline { $deadline }
move-answer-status = Status: { $status }
move-answer-board = Board: { $url }
move-answer-game = Game: { $url }
move-answer-piece-moves = Legal moves of the piece on { $square }: { $moves }
move-answer-piece-stuck = The piece on { $square } cannot move (or is not yours). You have { $count } legal moves; see them on the game page.
move-answer-all-moves = Legal moves: { $moves }
move-answer-footer = This answers your mail { $message } to the turn mail of game { $game } (seat { $seat }, version { $version }).
move-answer-effects = What happened: { $effects }
move-answer-turn-stays = It is still your turn: answer the same turn mail again with your move.
move-answer-too-long = The first line is longer than { $max } characters.
move-answer-not-a-command = “{ $line }” is neither a move (like C8-D7) nor resign, draw offer, draw accept, draw decline.
move-answer-not-your-turn = It is not your turn.
move-answer-seat-out = Your seat is out of the game.
move-answer-draw-pending = A draw offer is already pending: accept or decline it.
move-answer-no-draw-offer = No draw offer is pending.
move-answer-draw-already-accepted = You have already accepted this draw offer.
move-answer-refused = The game does not allow this now.
move-answer-tries-left = Your move was not played; answer the turn mail again ({ $left ->
    [one] { $left } more try
   *[other] { $left } more tries
} with this address).
# What the rules say about an illegal move.
move-error-game-over = the game is over
move-error-empty-square = { $square } is empty
move-error-not-your-piece = the piece on { $square } is not { $seat }'s to move
move-error-unreachable = the piece on { $from } cannot reach or act on { $to }
move-error-missing-placement = this move must say where the { $what } goes (>square)
move-error-forbidden-placement = the { $what } cannot be placed on { $square }
move-error-unexpected-placement = this move places nothing, so it takes no >square
move-error-missing-exit = a piece that enters the maze to act must exit it (/square)
move-error-forbidden-exit = the piece cannot exit the maze to { $square }
move-error-unexpected-exit = only a move that enters the maze to act has an exit
move-error-forbidden-victim = the reporter cannot kill on { $square }
move-error-unexpected-victim = only a reporter names a victim
move-error-missing-victim = the reporter must kill a piece next to { $square } (xsquare)
move-error-what-corpse = corpse
move-error-what-lifted-piece = lifted piece
# The effects of a move, joined with commas.
effect-piece = { $seat }'s { $kind }
effect-corpse = { $seat }'s dead { $kind }
effect-moved = { $piece } { $from }-{ $to }
effect-killed = kills { $piece } on { $square }
effect-placed = places { $piece } from { $from } on { $to }
effect-surrounded = { $piece } is surrounded on { $square } and dies
effect-control-seat = { $seat } now plays { $party }'s pieces
effect-control-hostage = { $party }'s pieces are now hostages
effect-control-orphaned = { $party }'s pieces are now orphaned
effect-eliminated = { $seat } is out of the game
effect-passed = { $seat } had no legal move and passes
# A game's result.
result-win = { $seats } wins ({ $reason })
result-draw = a draw between { $seats } ({ $reason })
result-reason-last-seat-standing = last seat standing
result-reason-resignation = by resignation
result-reason-mutual-elimination = mutual elimination
result-reason-no-legal-moves = no legal moves left
result-reason-draw-agreed = draw agreed
result-reason-timeout = on time
# Conditional moves (api/src/games/conditional.rs).
mail-kind-conditional_played = Your conditional move was played
mail-kind-conditional_discarded = Your conditional moves were discarded
move-answer-conditional-stored = Conditional moves stored: { $line }
move-answer-conditional-refused = Your conditional moves were not stored: { $detail }
move-answer-conditional-since = The game has moved on since the mail you answered: the line is matched against the moves played since then, and you will be told what becomes of it.
move-answer-reply-line = To store conditional moves, reply to this mail with a line on the first line, like if B G8-E6 Y H3-F5 G C2-D3 then C7-D7 (the rivals' moves you expect, then your answer).
move-answer-title-conditional = Conditional moves
move-answer-conditional-move-first = “{ $line }” holds conditional moves only, but it is your turn: a reply to a turn mail starts with your move. Write your move first, then the line, like C8-D7 if B G8-E6 Y H3-F5 G C2-D3 then C7-D7 (it plays C8-D7, then stores the line from the next turn). Nothing was played or stored.
# An event's notifications (api/src/tournaments/notify.rs, composed in email.rs).
mail-kind-tournament_started = The event started
mail-kind-tournament_round = Your next round is paired
mail-kind-tournament_finished = The event is over
mail-kind-tournament_cancelled = The event was cancelled
mail-subject-tournament = [Djambi] { $what }: { $name }
mail-tournament-intro = { $what }: { $name }.
mail-tournament-started = The first round is paired; the mail of your round names your game.
mail-tournament-round = Round { $round }: you play { $seat }.
mail-tournament-place = You placed { NUMBER($place, type: "ordinal") ->
    [one] { $place }st
    [two] { $place }nd
    [few] { $place }rd
   *[other] { $place }th
} with { $points } { $points ->
    [one] point
   *[other] points
}.
mail-tournament-place-of = You placed { NUMBER($place, type: "ordinal") ->
    [one] { $place }st
    [two] { $place }nd
    [few] { $place }rd
   *[other] { $place }th
} of { $players } with { $points } { $points ->
    [one] point
   *[other] points
}.
mail-tournament-cancelled-organiser = the organiser cancelled it
mail-tournament-cancelled-too_few_players = too few players joined
mail-open-tournament = The event: { $url }
# Web Push notifications (api/src/notifications/push.rs): a title per kind, a short body.
push-title-your_turn = Your turn
push-title-reminder = Your deadline is near
push-title-timeout = A seat ran out of time
push-title-chief_killed = Your chief was killed
push-title-seat_eliminated = You were eliminated
push-title-game_started = The game started
push-title-game_ended = The game ended
push-title-draw_offered = A draw is offered
push-title-message = A new message
push-title-webhook_disabled = A webhook endpoint was disabled
push-title-conditional_played = Your conditional move was played
push-title-conditional_discarded = Your conditional moves were discarded
push-title-tournament_started = The event started
push-title-tournament_round = Your next round is paired
push-title-tournament_finished = The event is over
push-title-tournament_cancelled = The event was cancelled
push-title-other = News from Djambi
push-body-game = Game { $game }
push-body-tournament-round = { $name }: round { $round }
push-body-tournament-place = { $name }: you placed { NUMBER($place, type: "ordinal") ->
    [one] { $place }st
    [two] { $place }nd
    [few] { $place }rd
   *[other] { $place }th
}
