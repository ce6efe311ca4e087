"""ioscore: results library and command line tool for the ioscore storage benchmark."""

__version__ = "0.1.0"
