"""Who may be mailed: the one decision every mail of the service goes through
(docs/SECURITY.md).

An address gets mail only when it is verified: an active account's own address (set by an
admin: ``create_account`` or the Django admin; users cannot change it themselves), or an
address whose owner followed the verification link sent to it (``VerifiedAddress``). A
contact address typed into a system description is neither until its owner confirms: until
then the verification mail is the only mail it gets, at most ``verify-address`` times a day
(``ioscore_site.ratelimit``), so nobody can make the service mail a stranger.

The link carries a signed, expiring token (``IOSCORE_VERIFY_LINK_DAYS``, default 7) of the
address's keyed hash, never the address: the link in a log or a browser history names nobody.
"""

from __future__ import annotations

import hashlib
import hmac
import logging

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core import signing
from django.core.mail import send_mail
from django.urls import reverse

from ioscore_site import ratelimit

from .models import VerifiedAddress

log = logging.getLogger(__name__)
SALT = "ioscore.accounts.verify-address"


def digest(address: str) -> str:
    # Keyed as the stored contact is encrypted (IOSCORE_CONTACT_KEY, else SECRET_KEY), so a
    # verification lasts as long as the contact it verifies stays readable.
    secret = str(getattr(settings, "IOSCORE_CONTACT_KEY", "") or settings.SECRET_KEY)
    key = hmac.new(secret.encode(), SALT.encode(), hashlib.sha256).digest()
    normal = address.strip().lower().encode("utf-8", "backslashreplace")
    return hmac.new(key, normal, hashlib.sha256).hexdigest()


def is_verified(address: str) -> bool:
    """Whether ``address`` may receive mail other than its verification mail."""
    if not address.strip():
        return False
    accounts = get_user_model().objects.filter(is_active=True, email__iexact=address.strip())
    return accounts.exists() or VerifiedAddress.objects.filter(digest=digest(address)).exists()


def send(subject: str, body: str, address: str) -> bool:
    """Send one mail to a verified address; an unverified one gets nothing (False)."""
    if not is_verified(address):
        log.info("not mailing an unverified address (%s…)", digest(address)[:12])
        return False
    send_mail(subject, body, None, [address], fail_silently=False)
    return True


def verification_requested(address: str) -> bool:
    """Whether a verification mail to ``address`` may go out now (and count it): not for a
    verified address, and at most the ``verify-address`` rate per address."""
    if is_verified(address):
        return False
    checks = [("verify-address", digest(address))]
    if ratelimit.retry_after(checks) is not None:
        return False
    ratelimit.record(checks)
    return True


def link(address: str) -> str:
    token = signing.TimestampSigner(salt=SALT).sign(digest(address))
    return settings.IOSCORE_SITE_URL.rstrip("/") + reverse("verify-address", args=[token])


def send_verification(address: str, why: str) -> None:
    """The verification mail: the only mail an unverified address gets. ``why`` says where
    the address was given (without anything private)."""
    days = settings.IOSCORE_VERIFY_LINK_DAYS
    body = (
        f"This address was given as the contact of {why}.\n\n"
        f"To receive mail about it, confirm the address within {days} days:\n\n"
        f"  {link(address)}\n\n"
        "If you did not expect this, ignore this mail: nothing else is sent to this address "
        "unless it is confirmed.\n"
    )
    send_mail("[ioscore] confirm your e-mail address", body, None, [address], fail_silently=False)


def _address_digest(token: str) -> str | None:
    max_age = settings.IOSCORE_VERIFY_LINK_DAYS * 86400
    try:
        return signing.TimestampSigner(salt=SALT).unsign(token, max_age=max_age)
    except signing.BadSignature:  # also SignatureExpired
        return None


def signing_ok(token: str) -> bool:
    """Whether ``token`` is a valid verification token that has not expired."""
    return _address_digest(token) is not None


def verify(token: str) -> bool:
    """Record the address of a valid, unexpired token as verified; False for any other."""
    verified = _address_digest(token)
    if verified is None:
        return False
    VerifiedAddress.objects.get_or_create(digest=verified)
    return True
