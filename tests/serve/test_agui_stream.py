"""An AG-UI run streams live over a real socket: events arrive while the turn still runs.

uvicorn serves the endpoint on a free loopback port; the fake live turn holds its
blocks back until the test has read ``RUN_STARTED`` and the first phase, so a response
buffered until the turn's end would fail the test. A client that goes away mid-run
leaves the turn running (the service owns it), and a retried run streams it whole.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass, field

import anyio
import httpx
import pytest
import uvicorn
from ag_ui.core import EventType, RunFinishedEvent
from starlette.applications import Starlette
from starlette.routing import Route
from test_agui_client import Conversation, body, parse_stream, read_reply

from turnframe.core.ids import Actor
from turnframe.core.reply import NoticeBlock
from turnframe.core.turn import TurnBlocks, TurnFinished, TurnPhase, TurnPhaseChanged
from turnframe.serve.agui import agui_endpoint
from turnframe.serve.http import CsrfTokens
from turnframe.serve.models import TurnRequestBody, TurnView
from turnframe.serve.state import ServeConfig, ServeState, StreamEvent

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@dataclass
class HeldTurn:
    """A turn that says ``received``, then waits for ``release`` before its reply."""

    turn_id: str = "held"
    conversation_id: str = "c"
    release: anyio.Event = field(default_factory=anyio.Event)
    readers: int = 0

    async def events(self, after: int = 0) -> AsyncIterator[StreamEvent]:
        self.readers += 1
        yield StreamEvent(
            seq=1, event=TurnPhaseChanged(turn_id=self.turn_id, phase=TurnPhase.RECEIVED)
        )
        await self.release.wait()
        block = NoticeBlock(code="n", text="Done.")
        yield StreamEvent(seq=2, event=TurnBlocks(turn_id=self.turn_id, blocks=(block,)))
        yield StreamEvent(seq=3, event=TurnFinished(turn_id=self.turn_id))

    async def result(self) -> TurnView:
        await self.release.wait()
        return TurnView(
            turn_id=self.turn_id,
            conversation_id=self.conversation_id,
            blocks=[NoticeBlock(code="n", text="Done.")],
            inspect="/v1/turns/held/inspection",
        )


@dataclass
class OneTurnService:
    turn: HeldTurn
    started: list[str | None] = field(default_factory=list)

    async def start_turn(
        self,
        actor: Actor,
        conversation_id: str,
        body: TurnRequestBody,
        *,
        idempotency_key: str | None,
    ) -> HeldTurn:
        self.started.append(idempotency_key)
        return self.turn


async def _actor(_request: object) -> Actor:
    return Actor(account="acme", user="maria")


async def test_events_reach_the_client_while_the_turn_runs() -> None:
    turn = HeldTurn()
    service = OneTurnService(turn)
    app = Starlette(routes=[Route("/v1/agui", agui_endpoint, methods=["POST"])])
    app.state.turnframe = ServeState(service=service, authenticate=_actor, config=ServeConfig())  # type: ignore[arg-type]
    app.state.turnframe_csrf = CsrfTokens(b"a test secret of 32 bytes......")
    server = uvicorn.Server(
        uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning", lifespan="off")
    )
    run = Conversation(thread_id="c").say("hello")
    headers = {"content-type": "application/json", "accept": "text/event-stream"}
    async with anyio.create_task_group() as group:
        group.start_soon(server.serve)
        with anyio.fail_after(10):
            while not server.started:
                await anyio.sleep(0.01)
        port = server.servers[0].sockets[0].getsockname()[1]
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", timeout=10) as client:
            # a client that goes away after the first frame: the turn is not cancelled
            async with client.stream(
                "POST", "/v1/agui", content=body(run), headers=headers
            ) as gone:
                assert gone.headers["content-type"].startswith("text/event-stream")
                assert gone.headers["cache-control"] == "no-cache"
                async for _chunk in gone.aiter_text():
                    break
            async with client.stream(
                "POST", "/v1/agui", content=body(run), headers=headers
            ) as live:
                chunks = live.aiter_text()
                seen = ""
                while seen.count("\n\n") < 2:
                    seen += await anext(chunks)
                first = parse_stream(seen[: seen.index("\n\n", seen.index("\n\n") + 2) + 2])
                assert [e.type for e in first] == [EventType.RUN_STARTED, EventType.CUSTOM]
                assert not turn.release.is_set()  # streamed before the turn replied
                turn.release.set()
                async for chunk in chunks:
                    seen += chunk
        server.should_exit = True
    reply = read_reply(parse_stream(seen))
    assert list(reply.texts.values()) == ["Done."]
    assert isinstance(reply.last, RunFinishedEvent)
    assert service.started == ["c-r1", "c-r1"]  # the retry names the same turn
