"""Submissions: releases, systems, the submission state machine, intake API and pages."""
