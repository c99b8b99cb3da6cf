"""Imported first by the tests' Python servers (aasa-origin.py, moto-server.py): they stop with
the test process that started them. The test runner ignores SIGTERM, and a child inherits that,
so `Process.terminate()` alone left them running (and a test process that ends never signals);
SIGTERM gets its default action back here, and a thread ends the server once its parent is gone."""
import os, signal, threading, time

signal.signal(signal.SIGTERM, signal.SIG_DFL)
signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGTERM])
_parent = os.getppid()


def _watch_parent():
    while os.getppid() == _parent:
        time.sleep(0.5)
    os._exit(0)


threading.Thread(target=_watch_parent, daemon=True).start()
