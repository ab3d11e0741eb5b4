"""The words the word guard reads by (docs/adr/0017-no-claim-in-model-words.md, I15).

Two closed lists per language, both normalised (case-folded, accents removed):

* :data:`FUNCTION_WORDS`: the words a model sentence may use without any fact holding
  them (articles, prepositions, pronouns other than "I", question words, politeness).
  Deliberately absent: negations, auxiliaries of tense ("was", "has", "foi", "já") and
  "I"/"eu", so a model cannot turn a fact's polarity or tense with them.
* :data:`CLAIM_STEMS`: prefixes of words that assert an effect in any domain ("done",
  "submit", "cancel", "feito", "envi", "gone ahead"...). A domain's own operation words
  are added from its registry (:class:`turnframe.runtime.claims.ClaimVocabulary`).

Matching is by prefix on purpose: it is broad, so that it errs towards treating a word
as a claim. Over-matching only drops words; it never lets a claim through.
"""

from __future__ import annotations

import re
import unicodedata

__all__ = ["CLAIM_STEMS", "FUNCTION_WORDS", "language", "normalise", "tokens"]

_EN_FUNCTION = """
a an the and or but to of on in at for with from by into onto about as than
it its this that these those there here
you your yours me my mine we our ours us he she they them their his her
is are be am
what which who whom whose when where why how
please thanks thank ok okay sure
now also just so too
one next other another
would like can could shall should may might must
if then
let tell know want need see choose pick say give
any some each both either
more most
"""

_PT_FUNCTION = """
o a os as um uma uns umas
de do da dos das em no na nos nas ao aos a as pelo pela pelos pelas para por com sem sobre entre ate
e ou mas que se
ele ela eles elas lhe lhes me te nos vos voce voces
seu sua seus suas meu minha meus minhas nosso nossa nossos nossas
este esta estes estas isto esse essa esses essas isso aquele aquela aquilo aqui ai ali
e sao ser esta estao
qual quais quem quando onde como porque quanto quantos quanta quantas
favor obrigado obrigada ok
agora tambem so
um outro outra outros outras proximo proxima
pode podes podem poderia quer queres querem deseja gostaria
diga indique escolha diz
qualquer algum alguma alguns algumas cada ambos
mais
"""

FUNCTION_WORDS: dict[str, frozenset[str]] = {
    "en": frozenset(_EN_FUNCTION.split()),
    "pt": frozenset(_PT_FUNCTION.split()),
}
"""Per language: words any sentence may use (normalised)."""

_EN_CLAIMS = """
done complet finish submit sent send book cancel add remov delet regist renam chang updat
set confirm valid queu accept issu reject paid pay gone went ahead taken care process
approv schedul creat start final sort handl arrang made did put sav appli transmit
deliver execut perform succe
"""

_PT_CLAIMS = """
feit fiz fez conclu termin envi submet reserv cancel anul adicion acrescent junt inclu
remov retir elimin apag regist mud alter atualiz defin confirm valid aceit emit rejeit
recus pag trat process cri inici marc marqu efetu realiz execut pront sucess coloq pus
guard
"""

CLAIM_STEMS: frozenset[str] = frozenset(_EN_CLAIMS.split()) | frozenset(_PT_CLAIMS.split())
"""Prefixes that mark a word as asserting an effect, in every language (normalised)."""

_WORD = re.compile(r"[a-z0-9]+")


def normalise(text: str) -> str:
    """Return ``text`` case-folded with accents removed (``"Concluída"`` → ``"concluida"``)."""
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def tokens(text: str) -> list[str]:
    """Return the normalised words of ``text`` in order (``"didn't"`` → ``didn``, ``t``)."""
    return _WORD.findall(normalise(text))


def language(locale: str) -> str:
    """Return the language whose function words apply to ``locale`` (``pt`` or ``en``)."""
    return "pt" if locale.lower().startswith("pt") else "en"
