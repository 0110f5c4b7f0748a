"""websocket-client's long-lived connection as its README shows it: a WebSocketApp whose
run_forever(reconnect=5) reconnects after a drop, with the library as installed from PyPI,
unmodified. Usage: python3 websocket_client_run_forever.py URL"""
import sys

import websocket

app = websocket.WebSocketApp(sys.argv[1], on_message=lambda ws, message: None)
app.run_forever(reconnect=5)
