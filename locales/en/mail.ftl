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
mail-subject-game = [Djambi] { $what } in game { $game } ({ $players })
mail-subject-plain = [Djambi] { $what }
mail-intro-game = { $what } in game { $game }.
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
mail-reset-ask = Someone (you, we hope) asked to reset the password of the Djambi account { $name }. This token works once, for one hour:
mail-reset-how = Set a new password with it: POST { $url }
mail-reset-with = with { $json }. Every session and personal access token of the account then ends.
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
move-answer-effect = Effect: { $effect }
move-answer-illegal = { $line } is not legal here: { $detail }.
move-answer-to-move = To move now: { $seat }
move-answer-to-move-deadline = To move now: { $seat }, deadline { $deadline }
move-answer-status = Status: { $status }
move-answer-board = Board: { $url }
move-answer-game = Game: { $url }
move-answer-piece-moves = Legal moves of the piece on { $square }: { $moves }
move-answer-piece-stuck = The piece on { $square } cannot move (or is not yours). You have { $count } legal moves; see them on the game page.
move-answer-all-moves = Legal moves: { $moves }
move-answer-footer = This answers your mail { $message } to the turn mail of game { $game } (seat { $seat }, version { $version }).
move-answer-tries-left = Your move was not played; answer the turn mail again ({ $left } more tries with this address).
