"""Plain model definitions for the benchmarks, written once for either framework.

Each builder takes a framework namespace ``m`` (``torch`` or ``oneflow``: the APIs are the
same) and uses the parameter names of the published implementations (torchvision, timm,
Hugging Face), so one framework's state dict loads into the other's model and both compute
the same function. This module imports neither framework, so a process can load only one
(the peak-RSS measurements do).
"""

from __future__ import annotations


def resnet50_reference(m, num_classes: int = 1000):
    """torchvision's ResNet-50 (v1.5: stride on the 3x3 conv), same module names."""
    nn = m.nn

    class Bottleneck(nn.Module):
        expansion = 4

        def __init__(self, inplanes, planes, stride=1, downsample=None):
            super().__init__()
            self.conv1 = nn.Conv2d(inplanes, planes, 1, bias=False)
            self.bn1 = nn.BatchNorm2d(planes)
            self.conv2 = nn.Conv2d(planes, planes, 3, stride, 1, bias=False)
            self.bn2 = nn.BatchNorm2d(planes)
            self.conv3 = nn.Conv2d(planes, planes * 4, 1, bias=False)
            self.bn3 = nn.BatchNorm2d(planes * 4)
            self.relu = nn.ReLU(inplace=True)
            self.downsample = downsample

        def forward(self, x):
            identity = x if self.downsample is None else self.downsample(x)
            out = self.relu(self.bn1(self.conv1(x)))
            out = self.relu(self.bn2(self.conv2(out)))
            out = self.bn3(self.conv3(out))
            return self.relu(out + identity)

    class ResNet(nn.Module):
        def __init__(self):
            super().__init__()
            self.inplanes = 64
            self.conv1 = nn.Conv2d(3, 64, 7, 2, 3, bias=False)
            self.bn1 = nn.BatchNorm2d(64)
            self.relu = nn.ReLU(inplace=True)
            self.maxpool = nn.MaxPool2d(3, 2, 1)
            self.layer1 = self._layer(64, 3, 1)
            self.layer2 = self._layer(128, 4, 2)
            self.layer3 = self._layer(256, 6, 2)
            self.layer4 = self._layer(512, 3, 2)
            self.avgpool = nn.AdaptiveAvgPool2d(1)
            self.fc = nn.Linear(2048, num_classes)

        def _layer(self, planes, blocks, stride):
            downsample = None
            if stride != 1 or self.inplanes != planes * 4:
                downsample = nn.Sequential(nn.Conv2d(self.inplanes, planes * 4, 1, stride, bias=False),
                                           nn.BatchNorm2d(planes * 4))
            layers = [Bottleneck(self.inplanes, planes, stride, downsample)]
            self.inplanes = planes * 4
            layers += [Bottleneck(self.inplanes, planes) for _ in range(1, blocks)]
            return nn.Sequential(*layers)

        def forward(self, x):
            x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
            x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
            return self.fc(m.flatten(self.avgpool(x), 1))

    return ResNet()


def vit_b16_reference(m, num_classes: int = 1000):
    """timm's vit_base_patch16_224, same module names (qkv in one Linear)."""
    nn, F = m.nn, m.nn.functional
    dim, depth, heads = 768, 12, 12

    class Attention(nn.Module):
        def __init__(self):
            super().__init__()
            self.qkv = nn.Linear(dim, dim * 3)
            self.proj = nn.Linear(dim, dim)

        def forward(self, x):
            b, n, c = x.shape
            q, k, v = self.qkv(x).reshape(b, n, 3, heads, c // heads).permute(2, 0, 3, 1, 4).unbind(0)
            x = F.scaled_dot_product_attention(q, k, v)
            return self.proj(x.transpose(1, 2).reshape(b, n, c))

    class Mlp(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = nn.Linear(dim, dim * 4)
            self.act = nn.GELU()
            self.fc2 = nn.Linear(dim * 4, dim)

        def forward(self, x):
            return self.fc2(self.act(self.fc1(x)))

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.norm1 = nn.LayerNorm(dim, eps=1e-6)
            self.attn = Attention()
            self.norm2 = nn.LayerNorm(dim, eps=1e-6)
            self.mlp = Mlp()

        def forward(self, x):
            x = x + self.attn(self.norm1(x))
            return x + self.mlp(self.norm2(x))

    class PatchEmbed(nn.Module):
        def __init__(self):
            super().__init__()
            self.proj = nn.Conv2d(3, dim, 16, 16)

        def forward(self, x):
            return self.proj(x).flatten(2).transpose(1, 2)

    class VisionTransformer(nn.Module):
        def __init__(self):
            super().__init__()
            self.patch_embed = PatchEmbed()
            self.cls_token = nn.Parameter(m.zeros(1, 1, dim))
            self.pos_embed = nn.Parameter(m.zeros(1, 197, dim))
            self.blocks = nn.Sequential(*[Block() for _ in range(depth)])
            self.norm = nn.LayerNorm(dim, eps=1e-6)
            self.head = nn.Linear(dim, num_classes)

        def forward(self, x):
            x = self.patch_embed(x)
            x = m.cat([self.cls_token.expand(x.shape[0], -1, -1), x], 1) + self.pos_embed
            x = self.norm(self.blocks(x))
            return self.head(x[:, 0])

    return VisionTransformer()


def gpt2_reference(m, vocab: int = 50257, positions: int = 1024, dim: int = 768, depth: int = 12,
                   heads: int = 12):
    """GPT-2 small (Hugging Face's layout: pre-norm blocks, fused qkv, tanh GELU, tied head)."""
    nn, F = m.nn, m.nn.functional

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.ln_1 = nn.LayerNorm(dim)
            self.c_attn = nn.Linear(dim, 3 * dim)
            self.c_proj = nn.Linear(dim, dim)
            self.ln_2 = nn.LayerNorm(dim)
            self.c_fc = nn.Linear(dim, 4 * dim)
            self.mlp_proj = nn.Linear(4 * dim, dim)

        def forward(self, x):
            b, t, c = x.shape
            q, k, v = self.c_attn(self.ln_1(x)).split(c, dim=2)
            q, k, v = (z.view(b, t, heads, c // heads).transpose(1, 2) for z in (q, k, v))
            y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
            x = x + self.c_proj(y.transpose(1, 2).reshape(b, t, c))
            return x + self.mlp_proj(F.gelu(self.c_fc(self.ln_2(x)), approximate="tanh"))

    class GPT2(nn.Module):
        def __init__(self):
            super().__init__()
            self.wte = nn.Embedding(vocab, dim)
            self.wpe = nn.Embedding(positions, dim)
            self.h = nn.ModuleList([Block() for _ in range(depth)])
            self.ln_f = nn.LayerNorm(dim)
            for p in self.parameters():
                if p.dim() == 2:
                    nn.init.normal_(p, std=0.02)

        def forward(self, idx):
            pos = m.arange(idx.shape[1])
            x = self.wte(idx) + self.wpe(pos)
            for block in self.h:
                x = block(x)
            return F.linear(self.ln_f(x), self.wte.weight)  # tied lm head

    return GPT2()


def bert_reference(m, vocab: int = 30522, positions: int = 512, dim: int = 768, depth: int = 12,
                   heads: int = 12):
    """BERT-base encoder (post-norm blocks, erf GELU, LayerNorm eps 1e-12) with its pooler."""
    nn, F = m.nn, m.nn.functional

    class Layer(nn.Module):
        def __init__(self):
            super().__init__()
            self.query = nn.Linear(dim, dim)
            self.key = nn.Linear(dim, dim)
            self.value = nn.Linear(dim, dim)
            self.attn_out = nn.Linear(dim, dim)
            self.attn_norm = nn.LayerNorm(dim, eps=1e-12)
            self.intermediate = nn.Linear(dim, 4 * dim)
            self.output = nn.Linear(4 * dim, dim)
            self.out_norm = nn.LayerNorm(dim, eps=1e-12)

        def forward(self, x, mask):
            b, t, c = x.shape
            q, k, v = (lin(x).view(b, t, heads, c // heads).transpose(1, 2)
                       for lin in (self.query, self.key, self.value))
            y = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
            x = self.attn_norm(x + self.attn_out(y.transpose(1, 2).reshape(b, t, c)))
            return self.out_norm(x + self.output(F.gelu(self.intermediate(x))))

    class Bert(nn.Module):
        def __init__(self):
            super().__init__()
            self.word_embeddings = nn.Embedding(vocab, dim)
            self.position_embeddings = nn.Embedding(positions, dim)
            self.token_type_embeddings = nn.Embedding(2, dim)
            self.embed_norm = nn.LayerNorm(dim, eps=1e-12)
            self.layer = nn.ModuleList([Layer() for _ in range(depth)])
            self.pooler = nn.Linear(dim, dim)
            for p in self.parameters():
                if p.dim() == 2:
                    nn.init.normal_(p, std=0.02)

        def forward(self, ids, attention_mask):
            t = ids.shape[1]
            x = self.word_embeddings(ids) + self.position_embeddings(m.arange(t))
            x = self.embed_norm(x + self.token_type_embeddings(m.zeros_like(ids)))
            # (b, 1, 1, t) additive mask: padded keys get a large negative score
            mask = (1.0 - attention_mask[:, None, None, :].to(x.dtype)) * -10000.0
            for layer in self.layer:
                x = layer(x, mask)
            return x, m.tanh(self.pooler(x[:, 0]))

    return Bert()
