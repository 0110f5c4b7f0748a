"""Autobahn's WebSocket client on Twisted with Twisted's ReconnectingClientFactory, the
pattern Autobahn's examples use (examples/twisted/websocket/reconnecting), with both
libraries as installed from PyPI, unmodified. Usage: python3 autobahn_twisted_reconnecting.py URL"""
import sys

from autobahn.twisted.websocket import WebSocketClientFactory, WebSocketClientProtocol, connectWS
from twisted.internet import reactor
from twisted.internet.protocol import ReconnectingClientFactory


class Client(WebSocketClientProtocol):
    def onOpen(self):
        self.factory.resetDelay()


class Factory(WebSocketClientFactory, ReconnectingClientFactory):
    protocol = Client

    def clientConnectionFailed(self, connector, reason):
        self.retry(connector)

    def clientConnectionLost(self, connector, reason):
        self.retry(connector)


factory = Factory(sys.argv[1])
connectWS(factory)
reactor.run()
