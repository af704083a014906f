"""Sessions: every exchange stored in SQLite, resumable, atomic; ask never raises."""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from clusterplan.assistant.answer import Answer, Intent
from clusterplan.assistant.respond import respond
from clusterplan.assistant.sessions.session import Assistant

NOTES_CALL = "/notes query=nvlink infiniband limit=2"


def rows(store, sql, params=()):
    return store.db.execute(sql, list(params)).fetchall()


def test_opening_an_assistant_writes_nothing_until_the_first_question(memory_store):
    Assistant(memory_store)
    Assistant(memory_store, session="later")
    assert rows(memory_store, "select count(*) from sessions") == [(0,)]


def test_each_question_and_its_answer_json_are_stored(memory_store):
    assistant = Assistant(memory_store, session="planning")
    answer = assistant.ask(NOTES_CALL)
    stored = rows(memory_store, "select role, text, answer_json from messages "
                                "where session_id = ? order by id", [assistant.session_id])
    assert [(r[0], r[1]) for r in stored] == [("user", NOTES_CALL),
                                              ("assistant", answer.markdown)]
    assert stored[0][2] is None
    assert Answer.model_validate_json(stored[1][2]) == answer
    [info] = assistant.sessions()
    assert (info.id, info.name, info.questions, info.first_question) == (
        assistant.session_id, "planning", 1, NOTES_CALL)


def test_a_named_session_resumes_with_its_history_and_last_intent(memory_store):
    first = Assistant(memory_store, session="cluster a")
    answer = first.ask(NOTES_CALL)
    assert first.last_intent == Intent(kind="concept",
                                       slots={"query": "nvlink infiniband", "limit": 2})
    again = Assistant(memory_store, session="cluster a")
    assert again.session_id == first.session_id
    assert again.last_intent == first.last_intent
    assert again.history() == [answer]
    by_id = Assistant(memory_store, session=first.session_id)
    assert by_id.session_name == "cluster a"


def test_new_session_starts_without_context_or_history(memory_store):
    assistant = Assistant(memory_store, session="one")
    assistant.ask(NOTES_CALL)
    old = assistant.session_id
    assistant.new_session("two")
    assert (assistant.last_intent, assistant.history(), assistant.session_name) == (
        None, [], "two")
    assert assistant.session_id != old
    assistant.ask("/help")
    assert [s.name for s in assistant.sessions()] == ["two", "one"]


def test_open_session_switches_between_saved_sessions(memory_store):
    assistant = Assistant(memory_store, session="one")
    assistant.ask(NOTES_CALL)
    assistant.new_session("two")
    assistant.ask("/help")
    info = assistant.open_session("one")
    assert (info.name, info.questions) == ("one", 1)
    assert [a.question for a in assistant.history()] == [NOTES_CALL]
    assert assistant.last_intent is not None and assistant.last_intent.kind == "concept"


def test_reset_forgets_the_follow_up_context_across_processes(memory_store):
    assistant = Assistant(memory_store, session="s")
    assistant.ask(NOTES_CALL)
    assistant.ask("/reset")
    assert assistant.last_intent is None
    assert Assistant(memory_store, session="s").last_intent is None
    state = rows(memory_store, "select state_json from sessions")[0][0]
    assert json.loads(state) == {"last_intent": None}


def test_an_exchange_is_stored_whole_or_not_at_all(memory_store):
    # the answer row cannot be written: neither the question nor the new session may remain
    memory_store.db.execute(
        "create trigger refuse before insert on messages when new.role = 'assistant' "
        "begin select raise(abort, 'disk full'); end")
    assistant = Assistant(memory_store, session="s")
    answer = assistant.ask(NOTES_CALL)
    assert answer.error is None and answer.data["notes"]["notes"]
    assert any("not saved" in w and "disk full" in w for w in answer.warnings)
    assert rows(memory_store, "select count(*) from messages") == [(0,)]
    assert rows(memory_store, "select count(*) from sessions") == [(0,)]


def test_report_leaves_out_session_commands(memory_store):
    assistant = Assistant(memory_store, session="s")
    assistant.ask(NOTES_CALL)
    assistant.ask("/help")
    assistant.ask("/sources")
    report = assistant.report(title="Notes")
    assert report.startswith("# Notes\n\nPrepared ")
    assert "1 question · session s" in report
    assert "/help" not in report.split("## Sources")[0]


def test_a_question_that_breaks_inside_still_gets_an_answer(memory_store, monkeypatch):
    def broken(question, previous=None, carried=None):
        raise RuntimeError("boom")

    monkeypatch.setattr("clusterplan.assistant.sessions.session.respond", broken)
    answer = Assistant(memory_store).ask("how much memory for llama 3 70b?")
    assert answer.error == "RuntimeError: boom"
    assert answer.markdown == "Could not answer: RuntimeError: boom"


def test_undecodable_text_is_stored_readably(memory_store):
    assistant = Assistant(memory_store)
    answer = assistant.ask("/notes query=\udcff\ud800 nvlink")
    assert answer.question == "/notes query=\ufffd\ufffd nvlink"
    assert assistant.history()[0].question == answer.question


HOSTILE = st.one_of(
    st.text(max_size=300),
    st.sampled_from([
        "", " ", "/", "//", "/ ", "/notes", "/notes =", "/notes query=", "/notes limit=1e999",
        "/notes 'unbalanced", "/session", "/reset extra words", "/report /no/such/dir/x.md",
        "'; DROP TABLE messages; --", "# heading\n| a | b |\n<details>", "🚀" * 500,
        "x" * 100_000, "\x00\x1b[31m\x7f", "1e308 PB of 9999999999999 GPUs at -5 Gb/s",
    ]),
)


@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=HOSTILE)
def test_ask_never_raises_and_always_answers(memory_store, text):
    answer = Assistant(memory_store, session="fuzz").ask(text)
    assert isinstance(answer, Answer)
    assert answer.error or answer.clarification or answer.markdown.strip()


def test_a_follow_up_about_another_workload_is_sized_afresh(memory_store):
    """The full fine-tune needs 16 H100s; "what about QLoRA?" must not keep that count.

    Asked alone, QLoRA of Llama 3 70B fits one H100: 70.55e9 NF4 weights are about 36-40 GB,
    well under the card's 81,559 MiB = 85.5 GB. The kept slots are said, the count is not.
    """
    assistant = Assistant(memory_store, session="follow")
    first = assistant.ask("How many H100s do I need to full fine-tune Llama 3 70B?")
    assert first.intent.assumed.get("gpus", first.intent.slots.get("gpus")) != 1
    second = assistant.ask("what about QLoRA?")
    assert "gpus" not in second.intent.slots
    assert "1× NVIDIA H100" in second.markdown
    kept = [r for r in second.intent.readings if r.startswith("kept from")]
    assert kept and "workload" not in kept[0] and "gpu_plural" not in kept[0]
    assert "model=llama-3-70b" in kept[0]


@pytest.mark.parametrize("follow_up", ["what if I use 128 instead?", "and 128?", "how about 128"])
def test_a_lone_count_after_a_job_on_gpus_is_the_new_gpu_count(memory_store, follow_up):
    # Seen in the terminal: "what if I use 128 instead?" after 13B on 64 H100 answered for 64.
    first = respond("Pretrain a 13B model on 300B tokens on 64 H100, how long?")
    again = respond(follow_up, previous=first.intent)
    assert again.intent.slots["gpus"] == 128
    assert "on 128× NVIDIA H100 SXM 80GB" in again.markdown


def test_a_pasted_thread_after_a_sizing_is_a_question_of_its_own(memory_store):
    # stas00/ml-engineering#9 asked right after a GPT-3 6.7B question in the terminal: its
    # paragraph names no model and was answered for the 6.7B. A question that long stands alone.
    first = respond("multi-node H100 training with ZeRO on GPT-3 6.7B, how much memory?")
    again = respond("GPU requirements and cost estimation. I also have started to do fine-tuning "
                    "and moving towards large scale fine-tuning. One of the key things before "
                    "getting started is estimating the number of GPUs required and the estimated "
                    "cost for doing the fine-tuning. Now there are so many variables like: 1. "
                    "What GPU you use. 2. How many GPUs we are using. 3. Is this full-finetuning "
                    "or using LoRA or QLoRA, etc.", previous=first.intent)
    assert "model" not in again.intent.slots and "params_b" not in again.intent.slots


def test_a_provider_without_an_offer_for_the_gpu_is_said_so(memory_store):
    # Seen in the terminal: "and the cost on lambda?" after a run on A100 40GB dropped the cost
    # without a word; the catalog's Lambda offers have no A100 40GB.
    first = respond("We have 4 nodes of 8x A100 40GB. How long to full fine-tune Llama 2 70B on "
                    "1B tokens?")
    again = respond("and the cost on lambda?", previous=first.intent)
    assert "Lambda has no on-demand offer for NVIDIA A100 SXM 40GB on record" in again.markdown


def test_a_team_of_people_at_a_speed_is_a_serving_plan_and_it_refers_back(memory_store):
    # Seen in the terminal: "my team of 30 people at 25 tokens/s each" was priced as one H100,
    # and "what TP should I use for it" then lost the model.
    first = respond("I want to serve Llama 3.1 70B for my team of 30 people at 25 tokens/s each. "
                    "What should I rent?")
    assert first.intent.kind == "plan" and first.intent.slots["users"] == 30
    assert first.markdown.startswith("Goal: serve 30 users x 25 tokens/s.")
    again = respond("what TP should I use for it on 2x H100?", previous=first.intent)
    assert again.intent.slots["model"] == "llama-3.1-70b"


def test_more_people_after_pricing_a_serving_cluster_serves_them(memory_store):
    # Seen in the terminal: "what if we had 100 people?" after pricing 2x H100 for Llama 3.1
    # 70B repeated the price. 100 sequences of 4,096 tokens take 100 x 4,096 x 327,680 B =
    # 134 GB of KV cache beside 141 GB of weights: more than 2 x 85.5 GB.
    a = respond("what TP should I use for Llama 3.1 70B inference on 2x H100?")
    b = respond("how much per month is that?", previous=a.intent)
    c = respond("what if we had 100 people?", previous=b.intent)
    assert c.intent.kind == "serving" and c.intent.slots["batch"] == 100
    assert c.markdown.startswith("No layout fits on 2× NVIDIA H100 SXM 80GB")


def test_the_biggest_model_asked_after_another_model_searches_the_catalog(memory_store):
    # Seen in the terminal: asked right after DeepSeek-R1's download size, it sized DeepSeek-R1.
    first = respond("how big is the safetensors download for DeepSeek R1?")
    again = respond("What's the biggest model I can fine-tune with QLoRA on a single RTX 4090?",
                    previous=first.intent)
    assert "model" not in again.intent.slots
    assert again.markdown.startswith("The largest catalog model that fits 1× NVIDIA GeForce RTX "
                                     "4090 24GB")


def test_a_plan_follow_up_searches_again_rather_than_keeping_the_chosen_gpu(memory_store):
    # The first plan chose a GPU kind and count; "and within 30 days?" is the same run with a
    # tighter deadline, searched over every kind again (the choice was the answer, not the
    # user's constraint), and "only H100s" narrows that search to the kind named.
    first = respond("How much would it cost to pretrain a 13B model on 2T tokens?")
    assert first.intent.kind == "plan"
    tighter = respond("and within 30 days?", previous=first.intent)
    assert tighter.intent.kind == "plan" and "gpu" not in tighter.intent.slots
    assert "within 30 days" in tighter.markdown and "other GPU kinds" in tighter.markdown
    kinds = tighter.markdown.split("ruled out")[0]
    assert kinds.count("× NVIDIA") >= 3, kinds  # more kinds than the one chosen before
    narrowed = respond("only H100s", previous=tighter.intent)
    assert narrowed.intent.kind == "plan" and narrowed.intent.slots["gpu"] == "h100-sxm"
    head = narrowed.markdown.splitlines()[0]
    assert "within 30 days" in head and "H100 SXM" in head


def test_offload_asked_after_a_fine_tune_that_does_not_fit_offloads_that_fine_tune(memory_store):
    # The full fine-tune of Qwen2.5 14B (14.7B parameters) needs 65 GB a 4090; "what about with
    # CPU offload of the optimizer?" is the same job with ZeRO-Offload: the FP32 master
    # weights, both Adam moments (12 bytes) and the gradients (2 bytes) move to host RAM,
    # 14 x 14.7 = 205.8 GB a node, and each GPU keeps its BF16 weights shard and activations.
    first = respond("I have 4x RTX 4090. Can I full fine-tune Qwen2.5-14B?")
    assert first.intent.kind == "fit" and "does not fit" in first.markdown
    offloaded = respond("what about with CPU offload of the optimizer?", previous=first.intent)
    assert offloaded.intent.slots["offload"] == "optimizer"
    assert offloaded.intent.slots["model"] == "qwen2.5-14b"
    assert "**206 GB of host RAM per node**" in offloaded.markdown
    assert "within its 25.8 GB" in offloaded.markdown
    kept_off = respond("and without offload?", previous=first.intent)
    assert "offload" not in kept_off.intent.slots


def _figure(text: str, pattern: str) -> float:
    return float(re.search(pattern, text).group(1).replace(",", ""))


def test_a_served_job_asked_for_speed_and_cost_gets_both_and_a_precision_change_re_serves(
        memory_store):
    # Speed and cost of one served job on a named cluster: the layout's speed, whether 50
    # users at 20 tokens/s each are met (one token per time per output token), the month on
    # demand and, by hand, dollars per million output tokens = $/hour / (tokens/s x 3,600) x 1e6.
    asked = respond("Serve Llama 3.1 70B in FP8 on 2x B200 to 50 users at 20 tokens/s each: "
                    "what speed and cost?")
    assert asked.intent.kind == "serving"
    head = asked.markdown.splitlines()[0]
    tokens_s = _figure(head, r"about \*\*([\d,.]+) output tokens/s")
    ms = _figure(head, r"([\d.]+) ms per token per sequence")
    hourly = _figure(head, r"\(\$([\d,.]+) an hour\)")
    per_million = _figure(head, r"\*\*\$([\d.]+) per million output tokens")
    assert per_million == pytest.approx(hourly / (tokens_s * 3600) * 1e6, rel=0.005)
    assert ("met." in head) == (1000 / ms >= 20)
    assert "a month" in head
    # after a plan and its price, a new precision serves the job again on that cluster
    plan = respond("We want to serve Llama 3.1 70B to 50 concurrent users at 20 tokens/s "
                   "each. What hardware?")
    price = respond("what would that cost per month?", previous=plan.intent)
    assert price.intent.kind == "pricing"
    fp8 = respond("and with FP8 weights?", previous=price.intent)
    assert fp8.intent.kind == "serving" and fp8.intent.slots["precision"] == "fp8"
    assert "output tokens/s" in fp8.markdown and "per million output tokens" in fp8.markdown


def test_compare_with_other_gpus_after_a_job_puts_both_side_by_side(memory_store):
    # "compare with 8x H100" after timing a LoRA run on 8x A100 40GB is the same run on both
    # clusters, the earlier one first; the H100's run is faster and costs less (its dense
    # BF16 peak, 989 TFLOP/s, is 3.2x the A100's 312, while it rents for well under 3.2x).
    first = respond("How long to LoRA fine-tune Llama 2 70B on 120M tokens on 8x A100 40GB?")
    both = respond("compare with 8x H100", previous=first.intent)
    assert both.intent.kind == "training"
    assert both.intent.slots["gpu_list"] == ["a100-sxm-40gb", "h100-sxm"]
    assert both.intent.slots["gpu_counts"] == [8, 8]
    rows = [line for line in both.markdown.splitlines()
            if line.startswith("| NVIDIA A100 SXM 40GB | 8 |")
            or line.startswith("| NVIDIA H100 SXM 80GB | 8 |")]
    assert len(rows) == 2
    a100_days, h100_days = (float(r.split("|")[3]) for r in rows)
    assert h100_days < a100_days / 2
    served = respond("Can I serve Llama 3 70B on 4x A100 80GB?")
    setups = respond("compare with 2x H200", previous=served.intent).markdown
    assert "| 4× NVIDIA A100 SXM 80GB |" in setups and "| 2× NVIDIA H200 SXM 141GB |" in setups


def test_a_budget_given_after_a_count_sizes_the_cluster_by_training_time(memory_store):
    # "How many H100 to pretrain a 7B model?" answers the fewest that hold it and asks for a
    # token budget to size the cluster by training time; "15T tokens" then does that: H100s
    # only, within the stated 90 days. By hand, a 7B model (Llama-3-like shape, 32 layers,
    # hidden 4,096, 4,096-token sequences) costs 6 x 7e9 + 12 x 32 x 4,096 x 4,096 = 48.44
    # GFLOP a token, so days = 15e12 x 48.44e9 / (GPUs x 989.4e12 x MFU) / 86,400.
    first = respond("How many H100 to pretrain a 7B model?")
    assert "token budget" in first.markdown
    sized = respond("15T tokens", previous=first.intent)
    assert sized.intent.kind == "plan"
    head = sized.markdown.splitlines()[0]
    gpus = int(re.search(r"\*\*(\d+)× NVIDIA H100 SXM 80GB\*\*", head).group(1))
    days_taken = float(re.search(r"\*\*([\d.]+) days\*\* at MFU ([\d.]+)%", head).group(1))
    mfu = float(re.search(r"at MFU ([\d.]+)%", head).group(1)) / 100
    assert "within 90 days" in head and days_taken <= 90 and gpus % 8 == 0
    by_hand = 15e12 * (6 * 7e9 + 12 * 32 * 4096 * 4096) / (gpus * 989.4e12 * mfu) / 86_400
    assert days_taken == pytest.approx(by_hand, rel=0.02)
    # a fine-tune's data size, given the same way, is its tokens: 50,000 x 2,000 x 3 = 300M
    lora = respond("How many H100 to fine-tune Llama 3 70B with LoRA?")
    data = respond("50k samples of 2k tokens, 3 epochs", previous=lora.intent)
    assert data.intent.kind == "plan" and data.intent.assumed["tokens"] == 300e6
    assert "on 300,000,000 tokens" in data.markdown.splitlines()[0]


def test_compare_with_another_gpu_kind_after_a_plan_plans_both_kinds(memory_store):
    # A plan held to H100s, then "compare with A100s": the same goal searched over both kinds,
    # each at its cheapest, not the H100 plan again.
    first = respond("How much would it cost to pretrain a 13B model on 2T tokens within 30 "
                    "days on H100s?")
    assert first.intent.kind == "plan"
    both = respond("compare with A100s", previous=first.intent)
    assert both.intent.kind == "plan"
    assert set(both.intent.slots["gpu_list"]) == {"h100-sxm", "a100-sxm-80gb"}
    text = both.markdown
    assert "H100 SXM 80GB" in text and "A100 SXM 80GB" in text
    assert "within 30 days" in text.splitlines()[0]


def test_a_session_command_typed_without_its_slash_runs_the_command(memory_store):
    # "report" or "help" alone on the line is the command, not a follow-up that repeats the
    # last answer; a question merely containing the word is still a question.
    assistant = Assistant(memory_store, session="bare")
    assistant.ask("How much memory to serve Llama 3 70B?")
    helped = assistant.ask("help")
    assert helped.question == "/help" and "/report" in helped.markdown
    asked = assistant.ask("report the memory for Llama 3 8B")
    assert asked.question == "report the memory for Llama 3 8B"
    assert "/help" not in assistant.report()


def test_a_commitment_no_offer_lists_is_estimated_from_on_demand_at_the_notes_discount(
        memory_store):
    # "and on coreweave with a 1-year commitment?" after pricing an 8xH100 node: CoreWeave
    # lists no 1-year price, so the answer says so and takes its on-demand month at the 20-40%
    # discount of pricing-models#reserved-discount: month x 0.6 to month x 0.8.
    first = respond("What does an 8xH100 node cost per month?")
    reserved = respond("and on coreweave with a 1-year commitment?", previous=first.intent)
    assert reserved.intent.slots["kind"] == "reserved_1y"
    head = reserved.markdown.splitlines()[0]
    assert head.startswith("No 1-year commitment price for NVIDIA H100 SXM 80GB is on record "
                           "at coreweave.")
    month = float(re.search(r"\*\*\$([\d,]+) a month\*\* for 8 GPUs", head).group(1)
                  .replace(",", ""))
    low, high = (float(x.replace(",", "")) for x in re.search(
        r"about \*\*\$([\d,]+)-\$([\d,]+) a month\*\*", head).groups())
    assert (low, high) == (pytest.approx(0.6 * month, abs=1), pytest.approx(0.8 * month, abs=1))
    assert "pricing-models#reserved-discount" in reserved.markdown


def test_a_long_what_if_follows_on_and_no_searched_micro_batch_is_said_assumed(memory_store):
    # "what if I use bf16 mixed precision with flash attention and 2k context?" is 13 words,
    # but opens as a follow-up: the same run at 2,048-token sequences. The layout search tries
    # every micro-batch that fits, so none is listed as assumed.
    from clusterplan.assistant.respond import respond

    first = respond("How long does it take to pretrain a 1B model on 100B tokens on 4 A100 40GB?")
    then = respond("what if I use bf16 mixed precision with flash attention and 2k context?",
                   first.intent)
    assert then.intent.kind == "training" and then.intent.slots["seq_len"] == 2048
    assert then.intent.slots["tokens"] == 100e9 and then.intent.slots["gpus"] == 4
    assert not any(line.startswith("assumed micro-batch") for line in first.assumptions
                   + then.assumptions)
