# The names of the game. Move notation (C8-D7) stays the canonical one in every language.
seat-R = Red
seat-B = Blue
seat-Y = Yellow
seat-G = Green
piece-chief = chief
piece-assassin = assassin
piece-reporter = reporter
piece-diplomat = diplomat
piece-necromobile = necromobile
piece-militant = militant
# The central square.
maze = maze
# The board picture (its title, description and caption).
board-title = Djambi board, ply { $ply }: { $text }
board-maze = E5, the maze
board-piece = { $seat } { $piece } on { $square }
board-corpse = { $seat } { $piece } (dead) on { $square }
board-piece-short = { $square } { $seat } { $piece }
board-corpse-short = { $square } { $seat } { $piece } corpse
board-last-move = last move: { $role } { $square }
board-role-from = from
board-role-to = to
board-role-exit = exit
board-role-place = place
board-role-victim = victim
board-waiting = Waiting for players: the position before the start
board-to-move = { $seat } to move
board-bonus = { $seat } to move (bonus turn after { $after })
board-rules = { $text } · { $ruler } rules
board-won = Game over: { $seat } wins
board-draw = Game over: a draw
board-draw-between = Game over: a draw between { $seats }
board-own = { $seat }
board-played-by = { $seat } played by { $by }
board-hostage = { $seat } hostage
board-orphaned = { $seat } orphaned
