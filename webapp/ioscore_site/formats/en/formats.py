"""ISO dates wherever a template prints a date without a format (times are UTC, settings)."""

DATE_FORMAT = "Y-m-d"
SHORT_DATE_FORMAT = "Y-m-d"
DATETIME_FORMAT = "Y-m-d H:i T"
SHORT_DATETIME_FORMAT = "Y-m-d H:i"
MONTH_DAY_FORMAT = "m-d"
YEAR_MONTH_FORMAT = "Y-m"
