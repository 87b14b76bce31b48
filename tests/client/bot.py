"""A Djambi bot: plays a random legal move in every game that waits on it.

DJAMBI_URL=http://127.0.0.1:8080 DJAMBI_TOKEN=<personal access token, scopes read and play>
python bot.py [GAME_ID ...]   # with game ids, it stops once they have all ended
"""

import os
import random
import sys
import time

from djambi_client import AuthenticatedClient
from djambi_client.api.games import get_game, legal_moves, my_games, play_move
from djambi_client.models import MoveRequest

client = AuthenticatedClient(base_url=os.environ["DJAMBI_URL"], token=os.environ["DJAMBI_TOKEN"])
rng, played, watched = random.Random(os.environ.get("DJAMBI_SEED")), 0, sys.argv[1:]
while not watched or any(get_game.sync(g, client=client).status != "finished" for g in watched):
    for game in my_games.sync(client=client, turn="mine").items:  # games waiting on my move
        page = legal_moves.sync(game.id, client=client)  # first page: up to 500 moves
        if page.moves:
            # If-Match: the version the move was chosen at (412 if the game moved on since);
            # Idempotency-Key: retrying this very request can never play twice.
            answer = play_move.sync_detailed(
                game.id, client=client, body=MoveRequest(move=rng.choice(page.moves).text),
                if_match=f'"{page.version}"', idempotency_key=f"{game.id}/{page.version}")
            played += answer.status_code == 201
    time.sleep(0.2)
print(f"played {played} moves")
