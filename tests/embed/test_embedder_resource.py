"""One embedder configuration: the Dagster resource is EmbedderConfig's
fields with its defaults, reads the same DUOCTHU_EMBED_* variables as search
and eval (as dg.EnvVar, so the UI shows names, not values), and resolves,
inside a Dagster run, to what EmbedderConfig.from_env gives outside one."""

from __future__ import annotations

import dataclasses

import dagster as dg
import pytest

from duocthu_assets.embed.base import EmbedderConfig
from duocthu_assets.resources import EmbedderResource


def test_the_resource_has_every_field_of_the_config_and_its_defaults():
    fields = {f.name: f.default for f in dataclasses.fields(EmbedderConfig)}
    resource = EmbedderResource()
    assert set(EmbedderResource.model_fields) == set(fields)
    assert {name: getattr(resource, name) for name in fields} == {name: getattr(EmbedderConfig(), name) for name in fields}
    assert resource.config() == EmbedderConfig()


ENV = {
    "DUOCTHU_EMBED_BACKEND": "openai-http",
    "DUOCTHU_EMBED_BASE_URL": "http://127.0.0.1:9/v1",
    "DUOCTHU_EMBED_MODEL": "e5",
    "DUOCTHU_EMBED_API_KEY_ENV": "MY_EMBED_KEY",
    "DUOCTHU_EMBED_BATCH_SIZE": "16",
    "DUOCTHU_EMBED_TIMEOUT_S": "7.5",
    "DUOCTHU_EMBED_INPUT_TYPE": "true",
    "DUOCTHU_EMBED_MODEL_ID": "e5-served@v3",
}


def test_a_dagster_run_resolves_the_same_config_as_search_and_eval(monkeypatch):
    for name, value in ENV.items():
        monkeypatch.setenv(name, value)
    resource = EmbedderResource.from_env()
    assert isinstance(resource.base_url, dg.EnvVar) and resource.base_url.env_var_name == "DUOCTHU_EMBED_BASE_URL"
    seen = {}

    @dg.asset
    def probe(embedder: EmbedderResource) -> None:
        seen["config"] = embedder.config()

    assert dg.materialize([probe], resources={"embedder": resource}).success
    assert seen["config"] == EmbedderConfig.from_env()
    assert seen["config"].batch_size == 16 and seen["config"].timeout_s == 7.5 and seen["config"].input_type is True


def test_a_bad_variable_is_refused_when_the_definitions_load(monkeypatch):
    monkeypatch.setenv("DUOCTHU_EMBED_BACKEND", "word2vec")
    with pytest.raises(ValueError, match="unknown embedding backend 'word2vec'"):
        EmbedderResource.from_env()
