"""Provider failures are not the user's fault (issue 11 item 4).

Every failure is provoked against loopback only (127.0.0.1): a closed port (connection
refused), a server that stalls (timeout), 401, 403, 429 quota and 404 model-not-found
answers, a TLS handshake against a plain-TCP listener, and a host name that does not
resolve, with the resolver patched so that no DNS query leaves the machine. Each is
classified as what it is (a refused connection is not a timeout) and ends the turn with
one notice saying the language model could not be reached, with the error class, in the
turn's locale; nothing is blamed on the message and ``chat`` exits non-zero.
"""

from __future__ import annotations

import argparse
import io
import socket
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import anyio
import pytest

from turnframe.core import Actor, TurnInput
from turnframe.providers import (
    AuthenticationFailed,
    ConnectionRefused,
    HostNotFound,
    ModelNotFound,
    ProviderError,
    ProviderTimeout,
    QuotaExceeded,
    TlsFailed,
    error_kind,
)
from turnframe.providers.conformance.runner import plain_request
from turnframe.providers.conformance.server import LoopbackServer
from turnframe.providers.openai import OpenAICompatibleProvider
from turnframe.runtime import FixedClock, Runtime, SequentialIds
from turnframe.samples.travel import DEMO_RECORDS, seed_all, travel_application
from turnframe.store import InMemoryStore
from turnframe.understand import ModelUnderstanding
from turnframe.understand.reply import ModelReplyWriter

ACTOR = Actor(account="acme", user="u1", roles=frozenset({"customer"}))


def _closed_port() -> int:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = int(sock.getsockname()[1])
    sock.close()
    return port


@contextmanager
def _no_dns() -> Iterator[None]:
    """Patch the resolver: only loopback names resolve, so no query leaves this machine."""
    real = socket.getaddrinfo

    def resolve(host: Any, *args: Any, **kwargs: Any) -> Any:
        name = host.decode() if isinstance(host, bytes) else str(host)
        if name not in ("127.0.0.1", "::1", "localhost"):
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        return real(host, *args, **kwargs)

    socket.getaddrinfo = resolve
    try:
        yield
    finally:
        socket.getaddrinfo = real


@pytest.fixture(scope="module")
def server() -> Iterator[LoopbackServer]:
    loopback = LoopbackServer().start()
    try:
        yield loopback
    finally:
        loopback.stop()


def _error(status: int, code: str, message: str) -> list[dict[str, Any]]:
    body = {"error": {"message": message, "type": "invalid_request_error", "code": code}}
    return [{"status": status, "body": body}]


# (name, how to reach the server, what it answers, expected class, error kind)
CASES: list[tuple[str, str, list[dict[str, Any]] | None, type[ProviderError], str]] = [
    ("refused", "closed", None, ConnectionRefused, "connection_refused"),
    ("stall", "server", [{"hang_s": 5}], ProviderTimeout, "timeout"),
    (
        "401",
        "server",
        _error(401, "invalid_api_key", "Incorrect API key"),
        AuthenticationFailed,
        "authentication",
    ),
    (
        "403",
        "server",
        _error(403, "forbidden", "Forbidden"),
        AuthenticationFailed,
        "authentication",
    ),
    (
        "quota",
        "server",
        _error(429, "insufficient_quota", "You exceeded your quota"),
        QuotaExceeded,
        "quota",
    ),
    (
        "404",
        "server",
        _error(404, "model_not_found", "The model `nope` does not exist"),
        ModelNotFound,
        "model_not_found",
    ),
    ("tls", "tls", None, TlsFailed, "tls"),
    ("dns", "dns", None, HostNotFound, "dns"),
]


def _provider(how: str, server: LoopbackServer, script: Any) -> OpenAICompatibleProvider:
    if script is not None:
        server.script(script * 4, {})
    url = {
        "closed": f"http://127.0.0.1:{_closed_port()}/v1",
        "server": f"{server.url}/v1",
        "tls": server.url.replace("http://", "https://", 1) + "/v1",
        "dns": f"http://model.invalid:{_closed_port()}/v1",
    }[how]
    # Only the stall case may time out: every other case gets a read timeout far above
    # what a loaded CI machine needs to answer, so a slow answer is never read as a stall.
    timeout = 0.3 if how == "server" and script and script[0].get("hang_s") else 10.0
    return OpenAICompatibleProvider("m", base_url=url, timeout=timeout, connect_timeout=5.0)


@pytest.mark.parametrize(
    ("name", "how", "script", "kind", "label"), CASES, ids=[c[0] for c in CASES]
)
def test_each_failure_is_classified_as_what_it_is(
    server: LoopbackServer, name: str, how: str, script: Any, kind: type[ProviderError], label: str
) -> None:
    provider = _provider(how, server, script)

    async def call() -> ProviderError:
        try:
            await provider.complete(plain_request())
        except ProviderError as exc:
            return exc
        finally:
            await provider.aclose()
        raise AssertionError("an answer came back")

    with _no_dns():
        error = anyio.run(call)
    assert type(error) is kind, f"{name}: {type(error).__name__}: {error}"
    assert error_kind(error) == label
    if name == "refused":
        assert not isinstance(error, ProviderTimeout)


async def _turn(provider: Any, locale: str) -> tuple[Any, Any]:
    store = InMemoryStore()
    runtime = Runtime(
        travel_application(),
        store,
        ModelUnderstanding(provider, effort="low"),
        clock=FixedClock(__import__("datetime").date(2026, 5, 1)),
        ids=SequentialIds(),
        reply_writer=ModelReplyWriter(provider, effort="low"),
    )
    for _key, case, state in seed_all(DEMO_RECORDS):
        await runtime.seed(ACTOR.account, case.workflow, state, case_id=case.case_id)
    try:
        result = await runtime.run_turn(
            ACTOR, "c", TurnInput(text="Cancel the Porto trip", locale=locale)
        )
    finally:
        closer = getattr(provider, "aclose", None)
        if closer is not None:
            await closer()
    return result, await store.load_replay(ACTOR.account, result.turn_id)


WORDS = {
    "en": ("The language model could not be reached", "nothing was changed"),
    "pt-PT": ("Não foi possível contactar o modelo de linguagem", "nada foi alterado"),
}
KINDS = {
    "en": {
        "connection_refused": "connection refused",
        "timeout": "did not answer in time",
        "authentication": "credentials were refused",
        "quota": "quota is used up",
        "model_not_found": "model was not found",
        "tls": "secure connection failed",
        "dns": "host name could not be resolved",
    },
    "pt-PT": {
        "connection_refused": "ligação recusada",
        "timeout": "não respondeu a tempo",
        "authentication": "credenciais foram recusadas",
        "quota": "quota está esgotada",
        "model_not_found": "modelo não foi encontrado",
        "tls": "ligação segura falhou",
        "dns": "resolver o nome do servidor",
    },
}


@pytest.mark.parametrize("locale", ["en", "pt-PT"])
@pytest.mark.parametrize(
    ("name", "how", "script", "kind", "label"), CASES, ids=[c[0] for c in CASES]
)
def test_the_turn_ends_with_a_model_unreachable_notice_in_the_turns_locale(
    server: LoopbackServer,
    name: str,
    how: str,
    script: Any,
    kind: type[ProviderError],
    label: str,
    locale: str,
) -> None:
    provider = _provider(how, server, script)
    with _no_dns():
        result, record = anyio.run(_turn, provider, locale)
    assert [b.kind for b in result.blocks] == ["notice"]
    notice = result.blocks[0]
    assert notice.code == f"model_unreachable:{label}"
    for words in (*WORDS[locale], KINDS[locale][label]):
        assert words in notice.text, notice.text
    for blame in ("Part of", "rephrase", "Parte da", "reformule"):
        assert blame not in notice.text
    assert result.commands == () and result.reply_calls == 0
    verdicts = [c["verdict"] for c in record["calls"]]
    assert all("ProviderTimeout" not in v for v in verdicts) or kind is ProviderTimeout
    if name == "refused":  # sent again once in place, recorded as what it was
        assert verdicts == ["resend: ConnectionRefused", "resend: ConnectionRefused"]


def test_chat_against_a_stopped_server_says_so_and_exits_non_zero(tmp_path: Any) -> None:
    from turnframe.cli.chat import EXIT_MODEL_UNREACHABLE, run_command

    out = io.StringIO()
    args = argparse.Namespace(
        command="chat",
        model=f"openai-compatible:http://127.0.0.1:{_closed_port()}/v1#m",
        db=str(tmp_path / "chat.db"),
        effort="low",
        locale="en",
    )
    code = run_command(args, stdin=io.StringIO("Cancel the Porto trip\n/quit\n"), out=out)
    text = out.getvalue()
    assert code == EXIT_MODEL_UNREACHABLE != 0
    assert "The language model could not be reached (connection refused)" in text
    assert "couldn't be read" not in text


def test_a_message_not_read_at_all_is_not_called_part_of() -> None:
    from turnframe.providers import ScriptedProvider

    def garbage(request: Any) -> Callable[..., Any] | str:
        return "not json"

    result, _ = anyio.run(_turn, ScriptedProvider(garbage), "en")
    texts = [getattr(b, "text", "") for b in result.blocks]
    assert "Your message couldn't be read; please rephrase it." in texts
    assert not any("Part of" in t for t in texts)
