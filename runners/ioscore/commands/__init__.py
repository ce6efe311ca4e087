"""One module per `ioscore` sub-command; each exports `add_parser(subparsers)`."""
