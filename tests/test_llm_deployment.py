"""The LLM engine in ordinary deployments (issue 24): behind a proxy, on servers without structured outputs,
on reasoning models, under timeouts, rate limits and quota errors, and against a gzip bomb (issue 25, item 6).
Real `openai` client over real HTTP to FakeOpenAI (and a forwarding proxy started here on 127.0.0.1)."""

from __future__ import annotations

import http.client
import importlib
import ssl
import threading
import tracemalloc
import zlib
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from tests.test_faults_openai import CHAT, COCOA, skipped
from tests.workflow_helpers import EXAMPLE_B, keyword_responder
from wif_action.app import AppConfig, build_workflow
from wif_action.engines.openai_engine import RelevantEntries
from wif_action.models import Answer, Outcome
from wif_action.ports import ToolError
from wif_action.tools.llm import LLMClient
from wif_action.tools.llm_http import LLM_BODY_BYTES, shared_tls_context
from wif_action.tools.progress import RecordingProgress

USER = "[1] (release 8.52.0, section fixes) Fix watchdog termination tags (#5242)"


@pytest.fixture
def cache(cache_path_for) -> Path:
    return cache_path_for([COCOA], pulls="recent")


def ask(cache: Path, github_url: str, openai_url: str, **env: str) -> Answer:
    """`wif ask --engine openai` (no offline fallback: what the LLM path did is what is seen)."""
    settings = {"GITHUB_API_URL": github_url, "OPENAI_API_KEY": "sk-test-key", "OPENAI_BASE_URL": openai_url + "/v1",
                "WIF_LLM_TIMEOUT": "30", "WIF_LLM_MAX_RETRIES": "0", "WIF_MODEL": "gpt-test", **env}
    workflow = build_workflow(AppConfig(db=cache, engine="openai", env=settings, github_timeout=30),
                              RecordingProgress())
    workflow.tools.fallback = None
    return workflow.run(EXAMPLE_B)


def found_the_fix(answer: Answer) -> bool:
    return answer.outcome == Outcome.HIGH and answer.candidates[0].pr == 5242 and not answer.skipped


# --------------------------------------------------------------------------- proxies
class _Proxy(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Forward)
        self.seen: list[str] = []

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"


class _Forward(BaseHTTPRequestHandler):
    """A plain forward proxy: `POST http://host:port/path` is sent on to host:port and the reply copied back."""

    def do_POST(self) -> None:
        self.server.seen.append(self.path)  # type: ignore[attr-defined]
        target = urlsplit(self.path)
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        upstream = http.client.HTTPConnection(target.hostname, target.port, timeout=10)
        headers = {k: v for k, v in self.headers.items() if k.lower() not in ("proxy-connection", "connection")}
        upstream.request("POST", target.path or "/", body=body, headers=headers)
        reply = upstream.getresponse()
        data = reply.read()
        self.send_response(reply.status)
        for key, value in reply.getheaders():
            if key.lower() not in ("transfer-encoding", "connection", "content-length"):
                self.send_header(key, value)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
        upstream.close()

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def proxy(monkeypatch) -> Iterator[_Proxy]:
    server = _Proxy()
    # a short poll: shutdown() waits for the loop's next one (0.5 s by default)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY"):
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.lower(), raising=False)
    monkeypatch.setenv("HTTP_PROXY", server.url)
    monkeypatch.setenv("HTTPS_PROXY", server.url)
    yield server
    server.shutdown()
    server.server_close()


def test_the_capped_client_goes_through_the_proxy_from_the_environment(openai_fake, proxy):
    llm = LLMClient("sk-test", base_url=openai_fake.url + "/v1", max_retries=0, timeout=30)
    result = llm.parse("gpt-test", "Pick entries.", USER, RelevantEntries, 300)
    assert isinstance(result.parsed, RelevantEntries)
    assert proxy.seen == [f"{openai_fake.url}/v1/chat/completions"]


def test_no_proxy_is_honoured(openai_fake, proxy, monkeypatch):
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")
    llm = LLMClient("sk-test", base_url=openai_fake.url + "/v1", max_retries=0, timeout=30)
    llm.parse("gpt-test", "Pick entries.", USER, RelevantEntries, 300)
    assert proxy.seen == [] and len(openai_fake.chat_requests()) == 1


def test_llm_clients_share_the_sdks_default_tls_context_per_certificate_setting(monkeypatch):
    """Each client built its own context (the whole CA store read, ~30 ms of CPU per `wif eval` case); now one per
    process and setting: the same trust as the SDK's httpx default, SSL_CERT_FILE still honoured."""
    import certifi
    import openai

    for name in ("SSL_CERT_FILE", "SSL_CERT_DIR"):
        monkeypatch.delenv(name, raising=False)
    context = shared_tls_context(openai.DefaultHttpxClient)
    httpx = importlib.import_module(openai.DefaultHttpxClient.__mro__[1].__module__)
    default = httpx.create_ssl_context()
    assert shared_tls_context(openai.DefaultHttpxClient) is context
    assert (context.verify_mode, context.check_hostname) == (ssl.CERT_REQUIRED, True)
    assert context.get_ca_certs() == default.get_ca_certs()
    monkeypatch.setenv("SSL_CERT_FILE", certifi.where())
    chosen = shared_tls_context(openai.DefaultHttpxClient)
    assert chosen is not context and chosen is shared_tls_context(openai.DefaultHttpxClient)
    assert chosen.cert_store_stats() == ssl.create_default_context(cafile=certifi.where()).cert_store_stats()


# --------------------------------------------------------------------------- output modes
@pytest.mark.parametrize(("rejected", "modes"), [
    ({"json_schema"}, ["json_schema", "json_object"]),
    ({"json_schema", "json_object"}, ["json_schema", "json_object", None]),
], ids=["json-mode", "prompt-only"])
def test_a_server_without_structured_outputs_is_asked_in_json_mode(cache, example_b_github, openai_fake,
                                                                   rejected, modes):
    openai_fake.rejected_formats = rejected
    openai_fake.responder = keyword_responder("watchdog")
    answer = ask(cache, example_b_github.url, openai_fake.url)
    assert found_the_fix(answer), skipped(answer)
    sent = [(body.get("response_format") or {}).get("type") for body in openai_fake.chat_requests()]
    assert sent[:len(modes)] == modes, "each rejected mode is tried once"
    assert set(sent[len(modes):]) == {modes[-1]}, "then the working mode for the rest of the run"


def test_json_mode_replies_are_validated_by_the_same_model(openai_fake):
    openai_fake.rejected_formats = {"json_schema"}
    openai_fake.queue({"entries": [{"id": "one"}]})
    llm = LLMClient("sk-test", base_url=openai_fake.url + "/v1", max_retries=0, timeout=30)
    with pytest.raises(ToolError, match="did not match the schema"):
        llm.parse("gpt-test", "Pick entries.", USER, RelevantEntries, 300)


# --------------------------------------------------------------------------- reasoning models
def test_a_reasoning_model_gets_room_to_reason(cache, example_b_github, openai_fake):
    openai_fake.reasoning_models = {"o4-mini"}
    openai_fake.responder = keyword_responder("watchdog")
    answer = ask(cache, example_b_github.url, openai_fake.url, WIF_MODEL="o4-mini")
    assert found_the_fix(answer), skipped(answer)
    requests = openai_fake.chat_requests()
    assert all(r["reasoning_effort"] == "low" and "temperature" not in r for r in requests)


def test_answer_sized_caps_end_a_reasoning_model_on_length(cache, example_b_github, openai_fake):
    """The failure the settings prevent: without a reasoning allowance every reply is cut off."""
    openai_fake.reasoning_models = {"o4-mini"}
    openai_fake.responder = keyword_responder("watchdog")
    answer = ask(cache, example_b_github.url, openai_fake.url, WIF_MODEL="o4-mini", WIF_REASONING_TOKENS="1")
    assert answer.outcome != Outcome.HIGH and "cut off (length)" in skipped(answer)


# --------------------------------------------------------------------------- retries, rate limits, quota
def test_a_timed_out_attempt_is_retried_while_time_remains(cache, example_b_github, openai_fake):
    openai_fake.responder = keyword_responder("watchdog")
    openai_fake.add_fault("POST", CHAT, status=None, gate=threading.Event(), times=1)  # held until the fake stops
    # per attempt: the held one always times out; the retry, answered at once, must fit in it on a loaded machine
    answer = ask(cache, example_b_github.url, openai_fake.url, WIF_LLM_TIMEOUT="5", WIF_LLM_MAX_RETRIES="1")
    assert found_the_fix(answer), skipped(answer)


def test_an_exhausted_quota_is_told_apart_and_not_retried(cache, example_b_github, openai_fake):
    quota = {"error": {"message": "You exceeded your current quota.", "type": "insufficient_quota",
                       "param": None, "code": "insufficient_quota"}}
    openai_fake.add_fault("POST", CHAT, status=429, body=quota, times=None)
    answer = ask(cache, example_b_github.url, openai_fake.url, WIF_LLM_MAX_RETRIES="2")
    assert "quota exhausted" in skipped(answer) and "rate limited" not in skipped(answer)
    assert len(openai_fake.chat_requests()) == 1


def test_a_transient_rate_limit_says_so(cache, example_b_github, openai_fake):
    openai_fake.add_fault("POST", CHAT, status=429, headers={"Retry-After": "0"}, times=None)
    answer = ask(cache, example_b_github.url, openai_fake.url, WIF_LLM_MAX_RETRIES="1")
    assert "rate limited (HTTP 429) after 1 retry: transient" in skipped(answer)
    assert "quota" not in skipped(answer) and len(openai_fake.chat_requests()) == 2


# --------------------------------------------------------------------------- compressed replies
def gzip_of_zeros(size: int) -> bytes:
    packer = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    block = bytes(1024 * 1024)
    return b"".join(packer.compress(block) for _ in range(size // len(block))) + packer.flush()


@pytest.fixture(scope="module")
def bomb() -> bytes:
    return gzip_of_zeros(32 * LLM_BODY_BYTES)  # 256 MiB once inflated, ~250 KB on the wire


def test_a_gzip_bomb_is_cut_off_at_the_cap_once_and_never_retried(openai_fake, bomb):
    fault = openai_fake.add_fault("POST", CHAT, status=200, raw_body=bomb, headers={"Content-Encoding": "gzip"},
                                  times=None)
    llm = LLMClient("sk-test", base_url=openai_fake.url + "/v1", max_retries=2, timeout=30)
    tracemalloc.start()
    try:
        with pytest.raises(ToolError, match="over the 8,388,608-byte cap"):
            llm.parse("gpt-test", "Pick entries.", USER, RelevantEntries, 300)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert fault.hits == 1, "an oversize reply is final: not asked again"
    assert peak < 4 * LLM_BODY_BYTES, f"inflated in bounded steps (peak {peak:,} bytes)"
    with pytest.raises(ToolError, match="not called"):  # the breaker: no further calls this run
        llm.parse("gpt-test", "Pick entries.", USER, RelevantEntries, 300)


def test_a_gzip_bomb_in_a_run_leaves_the_offline_engine_to_answer(cache, example_b_github, openai_fake, bomb):
    openai_fake.add_fault("POST", CHAT, status=200, raw_body=bomb, headers={"Content-Encoding": "gzip"}, times=None)
    settings = {"GITHUB_API_URL": example_b_github.url, "OPENAI_API_KEY": "sk-test-key",
                "OPENAI_BASE_URL": openai_fake.url + "/v1", "WIF_LLM_MAX_RETRIES": "2"}
    workflow = build_workflow(AppConfig(db=cache, engine="openai", env=settings, github_timeout=30),
                              RecordingProgress())
    answer = workflow.run(EXAMPLE_B)
    assert answer.outcome == Outcome.HIGH and answer.candidates[0].pr == 5242
    assert "over the 8,388,608-byte cap" in skipped(answer) and len(openai_fake.chat_requests()) == 1


@pytest.mark.parametrize("encoding", ["gzip", "deflate"])
def test_a_compressed_reply_of_normal_size_is_read(openai_fake, encoding):
    reply = (b'{"id":"c1","object":"chat.completion","created":1,"model":"gpt-test","choices":[{"index":0,'
             b'"finish_reason":"stop","message":{"role":"assistant","content":"{\\"entries\\":[]}"}}]}')
    packer = zlib.compressobj(6, zlib.DEFLATED, (16 if encoding == "gzip" else 0) + zlib.MAX_WBITS)
    openai_fake.add_fault("POST", CHAT, status=200, raw_body=packer.compress(reply) + packer.flush(),
                          headers={"Content-Encoding": encoding})
    llm = LLMClient("sk-test", base_url=openai_fake.url + "/v1", max_retries=0, timeout=30)
    assert llm.parse("gpt-test", "Pick entries.", USER, RelevantEntries, 300).parsed == RelevantEntries(entries=[])
    assert openai_fake.chat_requests()[0] is not None
