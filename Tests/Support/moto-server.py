#!/usr/bin/env python3
"""moto in server mode for the object-store tests, stopping with the test that started it.
usage: moto-server.py PORT (INITIAL_NO_AUTH_ACTION_COUNT in the environment turns SigV4 checks on)"""
import os, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import child_of_test  # noqa: F401,E402  (must come first: the signal and the parent watch)
from moto.server import main  # noqa: E402

main(["-H", "127.0.0.1", "-p", sys.argv[1]])
