"""The models of the oracle graphs: built with random weights (nothing is downloaded),
exported with torch.export. _zoo() maps a name to (make the module, make its inputs)."""
import os

import torch

# The seed's custom op: a non-scalar (ScalarType) keyword argument next to bool and float ones.
_lib = torch.library.Library("seedlib", "DEF")
_lib.define("scale_cast(Tensor x, *, ScalarType dtype, bool clamp=False, float scale=1.0) -> Tensor")


@torch.library.impl(_lib, "scale_cast", "CompositeExplicitAutograd")
def _scale_cast(x, *, dtype, clamp=False, scale=1.0):
    y = x * scale
    return (y.clamp(-1, 1) if clamp else y).to(dtype)


@torch.library.register_fake("seedlib::scale_cast")
def _scale_cast_fake(x, *, dtype, clamp=False, scale=1.0):
    return torch.empty_like(x, dtype=dtype)


class SeedMLP(torch.nn.Module):
    """mm -> seedlib.scale_cast(dtype=..., clamp=..., scale=...) -> gelu(tanh), four times."""

    def __init__(self, layers=4, d=512):
        super().__init__()
        self.ws = torch.nn.ParameterList([torch.nn.Parameter(torch.randn(d, d) / d**0.5) for _ in range(layers)])

    def forward(self, x):
        for i, w in enumerate(self.ws):
            h = torch.mm(x, w)
            x = torch.ops.seedlib.scale_cast(h, dtype=torch.float32, clamp=(i % 2 == 0), scale=0.5)
            x = torch.nn.functional.gelu(x, approximate="tanh")
        return x.sum(dim=[1], keepdim=True)


def _zoo():
    import torchvision
    from transformers import BertConfig, BertModel, GPT2Config, GPT2LMHeadModel, LlamaConfig, LlamaForCausalLM

    ids = lambda v: (lambda: (torch.randint(0, v, (2, 128)),))
    img = lambda: (torch.randn(2, 3, 224, 224),)
    return {
        "seed_mlp": (lambda: SeedMLP(), lambda: (torch.randn(64, 512),)),
        "resnet18": (lambda: torchvision.models.resnet18(), img),
        "gpt2": (lambda: GPT2LMHeadModel(GPT2Config(n_layer=12, use_cache=False, attn_implementation="eager")), ids(50000)),
        "bert": (lambda: BertModel(BertConfig(attn_implementation="eager")), ids(30000)),
        "llama": (lambda: LlamaForCausalLM(LlamaConfig(hidden_size=512, intermediate_size=1408, num_hidden_layers=8,
                                                       num_attention_heads=8, num_key_value_heads=4, vocab_size=32000,
                                                       use_cache=False, attn_implementation="eager")), ids(32000)),
        "gpt2_48l": (lambda: GPT2LMHeadModel(GPT2Config(n_layer=48, n_embd=256, n_head=8, use_cache=False,
                                                        attn_implementation="eager")), ids(50000)),
        "vit_b_16": (lambda: torchvision.models.vit_b_16(), img),
        "mobilenet_v3": (lambda: torchvision.models.mobilenet_v3_large(), img),
    }


def exported_program(name):
    mk, args = _zoo()[name]
    torch.manual_seed(0)
    return torch.export.export(mk().eval(), args(), strict=False).run_decompositions()


def build_exported(names=None):
    for name in names or list(_zoo()):
        yield name, exported_program(name).graph_module


def export_files(name, out_dir):
    from torch._export.serde.serialize import serialize

    ep = exported_program(name)
    with open(os.path.join(out_dir, f"{name}.export.fx.txt"), "w") as f:
        f.write(str(ep.graph))
    js = serialize(ep).exported_program
    with open(os.path.join(out_dir, f"{name}.export.json"), "wb") as f:
        f.write(js if isinstance(js, bytes) else js.encode())
