# Copyright 2026 mech-catalogue contributors
#
# Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# You may obtain a copy of the License at
#
#     http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.

"""The words of other languages than English that name a secret or order a model.

The tables :mod:`.other_languages` reads (adv29yz K4), for :data:`LANGUAGES`: the
terms for a password, a private key, a seed or recovery phrase (mnemonic), a PIN code,
an API key and a verification code (:data:`SECRET_TERMS`), the phrases for "ignore the
previous instructions", "you are now" and "system prompt" (:data:`INSTRUCTION_PHRASES`)
and the words by which a text asks its reader for something (:data:`REQUEST_WORDS`).

Sources: the wallet terms follow the wording wallet interfaces show their users
(MetaMask's extension locale files ``app/_locales/<lang>/messages.json``, keys
``password``, ``privateKey``, ``secretRecoveryPhrase``; Trust Wallet's app strings),
the others (instructions, PIN, API key, verification code, requests) a bilingual
dictionary's usual translation; each language's block names its source. The terms were
written from that wording, not diffed line by line against the locale files: a
wallet's newer wording may be missing.

Each term is written as the language writes it; :mod:`.other_languages` reads it as
it reads a text (folded, casefolded), as its :class:`Kind` says. A term may name what,
right after it, makes it an ordinary word (``unless``): Chinese ``密码`` is a password
and, in ``密码学``, cryptography.
"""

from enum import StrEnum
from typing import Dict, NamedTuple, Tuple


class Kind(StrEnum):
    """How a term matches (:mod:`.other_languages` docstring)."""

    WORD = "word"
    STEM = "stem"
    PART = "part"


class Term(NamedTuple):
    """A secret's name in one language."""

    #: as the language writes it (what a warning quotes)
    text: str
    #: :class:`Kind`
    kind: str
    #: what, right after the term, makes it an ordinary word (as written)
    unless: Tuple[str, ...] = ()


W, S, P = Kind.WORD, Kind.STEM, Kind.PART

#: the languages read here (ISO 639-1), in :data:`SECRET_TERMS`' order
LANGUAGES: Tuple[str, ...] = tuple(
    "zh-Hans zh-Hant ja ko ru uk es pt fr de it pl tr id ms vi ar fa hi".split()
)

#: Chinese 密码/密碼 is also a cipher: cryptography, a codon, an algorithm,
#: cryptanalysis, a cryptosystem
_CIPHER_HANS = ("学", "子", "算法", "分析", "体制", "系统", "编码")
_CIPHER_HANT = ("學", "子", "算法", "分析", "體制", "系統", "編碼")

#: the terms for a secret, by language
SECRET_TERMS: Dict[str, Tuple[Term, ...]] = {
    # MetaMask zh_CN (密码, 私钥, 助记词, 私钥助记词), wallet apps' 恢复短语/种子短语
    "zh-Hans": (
        Term("密码", P, _CIPHER_HANS),
        Term("口令", P),
        Term("私钥", P),
        Term("私人密钥", P),
        Term("私有密钥", P),
        Term("助记词", P),
        Term("助记短语", P),
        Term("恢复短语", P),
        Term("种子短语", P),
        Term("PIN码", P),
        Term("API密钥", P),
        Term("验证码", P),
    ),
    # MetaMask zh_TW (密碼, 私鑰, 助憶詞), Windows' 私密金鑰
    "zh-Hant": (
        Term("密碼", P, _CIPHER_HANT),
        Term("私鑰", P),
        Term("私密金鑰", P),
        Term("助記詞", P),
        Term("助憶詞", P),
        Term("助記短語", P),
        Term("恢復短語", P),
        Term("復原短語", P),
        Term("種子短語", P),
        Term("PIN碼", P),
        Term("API金鑰", P),
        Term("API密鑰", P),
        Term("驗證碼", P),
    ),
    # MetaMask ja (パスワード, 秘密鍵, シークレットリカバリーフレーズ), a bank's 暗証番号
    "ja": (
        Term("パスワード", P),
        Term("秘密鍵", P),
        Term("秘密キー", P),
        Term("プライベートキー", P),
        Term("シードフレーズ", P),
        Term("リカバリーフレーズ", P),
        Term("復元フレーズ", P),
        Term("ニーモニック", P),
        Term("暗証番号", P),
        Term("PINコード", P),
        Term("APIキー", P),
        Term("認証コード", P),
    ),
    # MetaMask ko (비밀번호, 개인 키, 비밀 복구 구문)
    "ko": (
        Term("비밀번호", P),
        Term("패스워드", P),
        Term("개인키", P),
        Term("프라이빗키", P),
        Term("복구구문", P),
        Term("시드구문", P),
        Term("니모닉", P),
        Term("PIN번호", P),
        Term("핀번호", P),
        Term("API키", P),
        Term("인증번호", P),
        Term("인증코드", P),
    ),
    # MetaMask ru (пароль, закрытый ключ, секретная фраза для восстановления)
    "ru": (
        Term("парол", S),
        Term("приватн ключ", S),
        Term("закрыт ключ", S),
        Term("секретн ключ", S),
        Term("секретн фраз", S),
        Term("сид фраз", S),
        Term("фраз восстановлен", S),
        Term("фраз для восстановлен", S),
        Term("мнемоническ", S),
        Term("мнемофраз", S),
        Term("пин код", S),
        Term("пинкод", S),
        Term("ключ API", S),
        Term("API ключ", S),
        Term("код подтвержден", S),
    ),
    # MetaMask uk (пароль, закритий ключ, секретна фраза для відновлення)
    "uk": (
        Term("парол", S),
        Term("приватн ключ", S),
        Term("закрит ключ", S),
        Term("секретн фраз", S),
        Term("сід фраз", S),
        Term("фраз відновлен", S),
        Term("фраз для відновлен", S),
        Term("мнемонічн", S),
        Term("пін код", S),
        Term("ключ API", S),
        Term("API ключ", S),
        Term("код підтвердж", S),
    ),
    # MetaMask es (contraseña, clave privada, frase secreta de recuperación)
    "es": (
        Term("contraseñ", S),
        Term("clave privad", S),
        Term("llave privad", S),
        Term("clave secret", S),
        Term("frase secret", S),
        Term("frase de recuperación", S),
        Term("frase semilla", S),
        Term("frase mnemotécnic", S),
        Term("frase mnemónic", S),
        Term("código PIN", W),
        Term("clave API", S),
        Term("clave de API", S),
        Term("código de verificación", S),
    ),
    # MetaMask pt_BR / pt (senha, chave privada, frase secreta de recuperação)
    "pt": (
        Term("senha", S),
        Term("palavra passe", S),
        Term("chave privad", S),
        Term("chaves privad", S),
        Term("frase secret", S),
        Term("frase de recuperação", S),
        Term("frase semente", S),
        Term("código PIN", W),
        Term("chave API", S),
        Term("chave de API", S),
        Term("código de verificação", S),
    ),
    # MetaMask fr (mot de passe, clé privée, phrase secrète de récupération)
    "fr": (
        Term("mot de passe", S),
        Term("mots de passe", S),
        Term("clé privée", S),
        Term("clés privées", S),
        Term("phrase secrète", S),
        Term("phrase de récupération", S),
        Term("phrase mnémonique", S),
        Term("code PIN", W),
        Term("clé API", S),
        Term("clé d'API", S),
        Term("code de vérification", S),
    ),
    # MetaMask de (Passwort, privater Schlüssel, geheime Wiederherstellungsphrase)
    "de": (
        Term("passwort", S),
        Term("kennwort", S),
        Term("privat schlüssel", S),
        Term("geheim schlüssel", S),
        Term("wiederherstellungsphrase", S),
        Term("API-Schlüssel", S),
        Term("Bestätigungscode", S),
    ),
    # MetaMask it (password, chiave privata, frase segreta di recupero)
    "it": (
        Term("chiave privat", S),
        Term("chiavi privat", S),
        Term("frase segret", S),
        Term("frase di recupero", S),
        Term("frase mnemonic", S),
        Term("parola d'ordine", S),
        Term("codice PIN", W),
        Term("chiave API", S),
        Term("codice di verifica", S),
    ),
    # MetaMask pl (hasło, klucz prywatny, tajna fraza odzyskiwania); hasło is also a
    # slogan (reklamowe, wyborcze, przewodnie) and a crossword's entry; its forms are
    # listed whole, since English words start with its stem (Haslam, haslet)
    "pl": tuple(
        Term(form, W, (" reklamow", " wyborcz", " przewodni", " krzyżówk"))
        for form in "hasło hasła hasłu hasłem haśle haseł hasłom hasłami hasłach".split()
    )
    + (
        Term("klucz prywatn", S),
        Term("klucza prywatn", S),
        Term("fraz odzyskiwan", S),
        Term("fraz seed", S),
        Term("fraz mnemoniczn", S),
        Term("kod PIN", W),
        Term("klucz API", S),
        Term("kod weryfikacyjn", S),
    ),
    # MetaMask tr (şifre, özel anahtar, gizli kurtarma ifadesi); şifreleme, şifreli,
    # şifresiz and şifre çözme are encryption, encrypted, unencrypted, decryption;
    # parola is also Italian's "word": only its Turkish inflected forms are read
    "tr": (
        Term("şifre", S, ("le", "li", "siz", " çöz")),
        Term("parolan", S),
        Term("parolay", S),
        Term("parolası", S),
        Term("özel anahtar", S),
        Term("gizli anahtar", S),
        Term("kurtarma ifade", S),
        Term("anımsatıcı", S),
        Term("PIN kod", S),
        Term("API anahtar", S),
        Term("doğrulama kod", S),
    ),
    # MetaMask id (kata sandi, kunci pribadi, frasa pemulihan rahasia)
    "id": (
        Term("kata sandi", W),
        Term("kunci pribadi", W),
        Term("kunci privat", W),
        Term("frasa pemulihan", W),
        Term("frasa rahasia", W),
        Term("frasa benih", W),
        Term("kode PIN", W),
        Term("kunci API", W),
        Term("kode verifikasi", W),
    ),
    # Malay (Dewan Bahasa dan Pustaka): kata laluan, kunci peribadi
    "ms": (
        Term("kata laluan", W),
        Term("kunci peribadi", W),
        Term("frasa pemulihan", W),
        Term("frasa rahsia", W),
        Term("kod PIN", W),
    ),
    # MetaMask vi (mật khẩu, khóa riêng tư, cụm từ khôi phục bí mật)
    "vi": (
        Term("mật khẩu", W),
        Term("khóa riêng", W),
        Term("khóa bí mật", W),
        Term("cụm từ khôi phục", W),
        Term("cụm từ bí mật", W),
        Term("cụm từ ghi nhớ", W),
        Term("mã PIN", W),
        Term("khóa API", W),
        Term("mã xác minh", W),
    ),
    # MetaMask ar (كلمة المرور, المفتاح الخاص, عبارة الاسترداد السرية)
    "ar": (
        Term("كلمة المرور", P),
        Term("كلمة مرور", P),
        Term("كلمة السر", P),
        Term("كلمة سر", P),
        Term("المفتاح الخاص", P),
        Term("مفتاح خاص", P),
        Term("المفتاح السري", P),
        Term("مفتاح سري", P),
        Term("عبارة الاسترداد", P),
        Term("عبارة الاسترجاع", P),
        Term("العبارة السرية", P),
        Term("عبارة سرية", P),
        Term("الرقم السري", P),
        Term("رقم التعريف الشخصي", P),
        Term("رمز PIN", P),
        Term("مفتاح API", P),
        Term("رمز التحقق", P),
    ),
    # MetaMask fa (رمز عبور, کلید خصوصی, عبارت بازیابی)
    "fa": (
        Term("رمز عبور", P),
        Term("گذرواژه", P),
        Term("کلمه عبور", P),
        Term("کلید خصوصی", P),
        Term("عبارت بازیابی", P),
        Term("کلمات بازیابی", P),
        Term("عبارت مخفی", P),
        Term("کد پین", P),
        Term("رمز پین", P),
        Term("کلید API", P),
        Term("کد تایید", P),
    ),
    # MetaMask hi (पासवर्ड, निजी कुंजी, गुप्त रिकवरी फ्रेज़); पिन कोड is also India's
    # postal code, so it is not read
    "hi": (
        Term("पासवर्ड", P),
        Term("कूटशब्द", P),
        Term("निजी कुंजी", P),
        Term("प्राइवेट की", P),
        Term("रिकवरी फ्रेज़", P),
        Term("सीड फ्रेज़", P),
        Term("पुनर्प्राप्ति वाक्यांश", P),
        Term("गुप्त वाक्यांश", P),
        Term("API कुंजी", P),
    ),
}


class Phrase(NamedTuple):
    """An instruction to a model in one language: words in order, each one of a few.

    Each slot holds the stems one of which stands there (a verb, "previous",
    "instructions"); up to :data:`PHRASE_GAP_WORDS` words (in a spaced language) or
    :data:`PHRASE_GAP_CHARS` characters (``spaced`` False) may stand between two
    slots, and the last two slots are read in either order (``ignore the instructions
    above``, ``ignore the above instructions``).
    """

    #: what a warning quotes (as the language writes it)
    text: str
    #: the stems of each slot, in order
    slots: Tuple[Tuple[str, ...], ...]
    #: whether the language parts its words with spaces
    spaced: bool = True


#: words that may stand between two slots of a spaced :class:`Phrase` (``ignore all
#: of the previous instructions``)
PHRASE_GAP_WORDS = 3
#: characters that may stand between two slots of an unspaced one (``忽略之前的所有指令``)
PHRASE_GAP_CHARS = 12

#: the phrases for "ignore the previous instructions", "you are now" and "system
#: prompt", by language (a bilingual dictionary's words; the verbs in their imperative
#: and infinitive stems)
INSTRUCTION_PHRASES: Dict[str, Tuple[Phrase, ...]] = {
    "zh-Hans": (
        Phrase(
            "忽略之前的指令",
            (
                ("忽略", "无视", "忽视", "忘记", "不要理会", "不理会"),
                ("之前", "以前", "先前", "上面", "上述", "以上", "前面", "此前"),
                ("指令", "指示", "说明", "提示", "规则", "命令"),
            ),
            spaced=False,
        ),
        Phrase("你现在是", (("你现在是", "您现在是"),), spaced=False),
        Phrase("系统提示", (("系统提示", "系统指令"),), spaced=False),
    ),
    "zh-Hant": (
        Phrase(
            "忽略之前的指令",
            (
                ("忽略", "無視", "忽視", "忘記", "不要理會", "不理會"),
                ("之前", "以前", "先前", "上面", "上述", "以上", "前面", "此前"),
                ("指令", "指示", "說明", "提示", "規則", "命令"),
            ),
            spaced=False,
        ),
        Phrase("你現在是", (("你現在是", "您現在是"),), spaced=False),
        Phrase("系統提示", (("系統提示", "系統指令"),), spaced=False),
    ),
    "ja": (
        Phrase(
            "以前の指示を無視",
            (
                ("以前", "前の", "上記", "これまで", "先の", "上の"),
                ("指示", "命令", "指令", "プロンプト", "ルール"),
                ("無視", "忘れ"),
            ),
            spaced=False,
        ),
        Phrase("あなたは今", (("あなたは今", "あなたはこれから"),), spaced=False),
        Phrase("システムプロンプト", (("システムプロンプト",),), spaced=False),
    ),
    "ko": (
        Phrase(
            "이전 지시를 무시",
            (
                ("이전", "위의", "앞의", "앞선", "기존"),
                ("지시", "명령", "지침", "프롬프트", "규칙"),
                ("무시", "잊어"),
            ),
            spaced=False,
        ),
        Phrase("너는 이제", (("너는이제", "당신은이제", "넌이제"),), spaced=False),
        Phrase("시스템 프롬프트", (("시스템프롬프트",),), spaced=False),
    ),
    "ru": (
        Phrase(
            "игнорируй предыдущие инструкции",
            (
                ("игнорир", "проигнорир", "забуд", "не обращай", "отбрось", "пренебре"),
                ("предыдущ", "прежн", "предшеств", "вышеуказан", "выше", "ранее"),
                ("инструкц", "указани", "сообщени", "правил", "промпт", "команд"),
            ),
        ),
        Phrase("ты теперь", (("ты теперь", "вы теперь", "теперь ты", "теперь вы"),)),
        Phrase("системный промпт", (("системн",), ("промпт", "подсказ", "инструкц"))),
    ),
    "uk": (
        Phrase(
            "ігноруй попередні інструкції",
            (
                ("ігнору", "проігнору", "забудь", "забудьте", "не зважай"),
                ("попередн", "вищенаведен", "вище", "раніш"),
                ("інструкц", "вказівк", "повідомлен", "правил", "промпт", "команд"),
            ),
        ),
        Phrase("ти тепер", (("ти тепер", "ви тепер", "тепер ти", "тепер ви"),)),
        Phrase("системний промпт", (("системн",), ("промпт", "підказ", "інструкц"))),
    ),
    "es": (
        Phrase(
            "ignora las instrucciones anteriores",
            (
                ("ignor", "olvid", "descart", "omit", "haz caso omiso"),
                ("instruccion", "indicacion", "mensaje", "regla", "órdenes", "prompt"),
                ("anterior", "previ", "de arriba", "precedent"),
            ),
        ),
        Phrase("ahora eres", (("ahora eres", "ahora usted es"),)),
        Phrase(
            "prompt del sistema",
            (("prompt", "indicacion", "mensaje", "instruccion"), ("del sistema",)),
        ),
    ),
    "pt": (
        Phrase(
            "ignore as instruções anteriores",
            (
                ("ignor", "esqueç", "descart", "desconsider"),
                ("instruç", "mensage", "regra", "ordens", "prompt"),
                ("anterior", "prévi", "acima", "precedent"),
            ),
        ),
        Phrase("agora você é", (("agora você é", "agora tu és", "agora és"),)),
        Phrase(
            "prompt do sistema",
            (("prompt", "instruç", "mensagem"), ("do sistema",)),
        ),
    ),
    "fr": (
        Phrase(
            "ignore les instructions précédentes",
            (
                ("ignor", "oubli", "fais abstraction", "ne tiens pas compte"),
                ("instruction", "consigne", "message", "règle", "ordre", "prompt"),
                ("précédent", "antérieur", "ci-dessus", "plus haut"),
            ),
        ),
        Phrase(
            "tu es maintenant",
            (("tu es maintenant", "vous êtes maintenant", "désormais tu es"),),
        ),
        Phrase(
            "prompt système",
            (("prompt", "invite", "message", "consigne"), ("système", "du système")),
        ),
    ),
    "de": (
        Phrase(
            "ignoriere die vorherigen Anweisungen",
            (
                ("ignorier", "vergiss", "vergessen", "missacht", "übergeh"),
                ("vorherig", "vorig", "obig", "bisherig", "früher", "vorangegangen"),
                ("anweisung", "instruktion", "nachricht", "regel", "befehl", "prompt"),
            ),
        ),
        Phrase("du bist jetzt", (("du bist jetzt", "du bist nun", "sie sind jetzt"),)),
        Phrase("Systemprompt", (("systemprompt", "system prompt", "systemanweisung"),)),
    ),
    "it": (
        Phrase(
            "ignora le istruzioni precedenti",
            (
                ("ignor", "dimentic", "trascur", "non considerare"),
                ("istruzion", "messagg", "regol", "prompt", "ordin"),
                ("precedent", "sopra", "anterior"),
            ),
        ),
        Phrase("ora sei", (("ora sei", "adesso sei", "da ora sei"),)),
        Phrase("prompt di sistema", (("prompt", "istruzion"), ("di sistema",))),
    ),
    "pl": (
        Phrase(
            "zignoruj poprzednie instrukcje",
            (
                ("zignoruj", "ignoruj", "zapomnij", "pomiń"),
                ("poprzedni", "wcześniejsz", "powyższ"),
                ("instrukcj", "polece", "wiadomoś", "reguł", "prompt"),
            ),
        ),
        Phrase("jesteś teraz", (("jesteś teraz", "teraz jesteś"),)),
        Phrase("prompt systemowy", (("prompt", "polece", "instrukcj"), ("systemow",))),
    ),
    "tr": (
        Phrase(
            "önceki talimatları yok say",
            (
                ("önceki", "yukarıdaki", "evvelki"),
                ("talimat", "komut", "istem", "kural", "mesaj", "yönerge"),
                ("yok say", "görmezden gel", "unut", "dikkate alma"),
            ),
        ),
        Phrase("artık sen", (("artık sen", "sen artık", "şimdi sen"),)),
        Phrase("sistem istemi", (("sistem",), ("istem", "komut", "talimat"))),
    ),
    "id": (
        Phrase(
            "abaikan instruksi sebelumnya",
            (
                ("abaikan", "lupakan", "acuhkan"),
                ("instruksi", "perintah", "arahan", "petunjuk", "aturan", "pesan"),
                ("sebelum", "di atas", "terdahulu"),
            ),
        ),
        Phrase(
            "kamu sekarang adalah",
            (("kamu sekarang", "anda sekarang", "sekarang kamu", "sekarang anda"),),
        ),
        Phrase("prompt sistem", (("prompt", "perintah", "arahan"), ("sistem",))),
    ),
    "ms": (
        Phrase(
            "abaikan arahan sebelumnya",
            (
                ("abaikan", "lupakan"),
                ("arahan", "perintah", "peraturan", "mesej"),
                ("sebelum", "di atas", "terdahulu"),
            ),
        ),
        Phrase("anda kini", (("anda kini", "kamu kini", "kini anda"),)),
    ),
    "vi": (
        Phrase(
            "bỏ qua các hướng dẫn trước đó",
            (
                ("bỏ qua", "phớt lờ", "quên đi", "lờ đi"),
                ("hướng dẫn", "chỉ dẫn", "chỉ thị", "lệnh", "quy tắc", "lời nhắc"),
                ("trước", "ở trên", "phía trên", "bên trên"),
            ),
        ),
        Phrase("bạn bây giờ là", (("bạn bây giờ là", "bây giờ bạn là"),)),
        Phrase(
            "lời nhắc hệ thống",
            (("lời nhắc", "chỉ thị", "prompt"), ("hệ thống",)),
        ),
    ),
    "ar": (
        Phrase(
            "تجاهل التعليمات السابقة",
            (
                ("تجاهل", "انس", "أهمل", "لا تلتفت"),
                ("التعليمات", "تعليمات", "الأوامر", "أوامر", "الإرشادات", "القواعد"),
                ("السابقة", "السابق", "أعلاه", "الماضية"),
            ),
            spaced=False,
        ),
        Phrase("أنت الآن", (("أنت الآن", "انت الان"),), spaced=False),
        Phrase(
            "موجه النظام",
            (("موجه", "تعليمات", "رسالة"), ("النظام",)),
            spaced=False,
        ),
    ),
    "fa": (
        Phrase(
            "دستورالعمل های قبلی را نادیده بگیر",
            (
                ("دستور", "راهنمایی", "پیام", "قوانین", "پرامپت"),
                ("قبلی", "پیشین", "بالا"),
                ("نادیده", "فراموش"),
            ),
            spaced=False,
        ),
        Phrase("تو اکنون", (("تو اکنون", "تو الان", "شما اکنون", "شما الان"),), False),
        Phrase("پرامپت سیستم", (("پرامپت", "دستور", "پیام"), ("سیستم",)), False),
    ),
    "hi": (
        Phrase(
            "पिछले निर्देशों को अनदेखा करें",
            (
                ("पिछल", "पूर्व", "ऊपर", "उपरोक्त"),
                ("निर्देश", "आदेश", "नियम", "संदेश", "प्रॉम्प्ट"),
                ("अनदेखा", "नजरअंदाज", "भूल", "उपेक्षा"),
            ),
            spaced=False,
        ),
        Phrase("अब तुम", (("अब तुम", "अब आप"),), spaced=False),
        Phrase("सिस्टम प्रॉम्प्ट", (("सिस्टम प्रॉम्प्ट",),), spaced=False),
    ),
}

#: the words by which a text asks its reader for something of theirs in each language:
#: "your" and the imperative handing verbs (enter, type, paste, send, give, provide,
#: share, tell), a bilingual dictionary's; stems as :data:`SECRET_TERMS`' are. Prose
#: that is not an argument's asks for a secret it names only with one of these near it
#: (:func:`secret_requested`), as the English request shapes read ``your`` and ``paste``
REQUEST_WORDS: Dict[str, Tuple[Term, ...]] = {
    "zh-Hans": tuple(
        Term(w, P) for w in "您的 你的 请 输入 粘贴 提供 发送 填写 告诉 分享".split()
    ),
    "zh-Hant": tuple(
        Term(w, P) for w in "您的 你的 請 輸入 貼上 提供 發送 填寫 告訴 分享".split()
    ),
    "ja": tuple(
        Term(w, P)
        for w in "あなたの 入力 貼り付け 送信 提供 教えて ください 共有".split()
    ),
    "ko": tuple(
        Term(w, P) for w in "당신의 귀하의 입력 붙여넣 제공 보내 알려 공유".split()
    ),
    "ru": tuple(
        Term(w, S)
        for w in "ваш твой твоего введ вставь укаж отправь сообщ предостав пришл".split()
    ),
    "uk": tuple(
        Term(w, S) for w in "ваш твій твого введ встав вкаж надішл повідом".split()
    ),
    "es": tuple(
        Term(w, S)
        for w in "tu tus su introduc ingres pega escrib envi proporcion compart".split()
    ),
    "pt": tuple(
        Term(w, S)
        for w in "seu sua digit insira cole envie forneç inform compartilh".split()
    ),
    "fr": tuple(
        Term(w, S)
        for w in "votre vos ton ta entrez saisi collez envoy fourn indiqu partag".split()
    ),
    "de": tuple(
        Term(w, S) for w in "ihr ihre dein deine eingeb einfüg send teil gib".split()
    ),
    "it": tuple(
        Term(w, S)
        for w in "tuo tua vostr inserisc incoll invi fornisc condividi digit".split()
    ),
    "pl": tuple(
        Term(w, S) for w in "twój twoj wpisz wprowadź wklej podaj wyślij".split()
    ),
    "tr": tuple(
        Term(w, S) for w in "sizin senin girin gir yapıştır gönder paylaş".split()
    ),
    "id": tuple(
        Term(w, S) for w in "anda kamu masukkan tempel kirim berikan bagikan".split()
    ),
    "ms": tuple(Term(w, S) for w in "anda awak masukkan tampal hantar berikan".split()),
    "vi": tuple(
        Term(w, W) for w in ("của bạn", "nhập", "dán", "gửi", "cung cấp", "chia sẻ")
    ),
    "ar": tuple(
        Term(w, P)
        for w in ("أدخل", "ادخل", "الصق", "أرسل", "شارك", "زودنا", "الخاص بك")
    ),
    "fa": tuple(
        Term(w, P) for w in ("خود را", "وارد کنید", "بفرستید", "ارسال کنید", "شما")
    ),
    "hi": tuple(
        Term(w, P) for w in ("अपना", "अपनी", "आपका", "आपकी", "दर्ज", "डालें", "भेजें")
    ),
}
#: characters between a secret's name and a :data:`REQUEST_WORDS` word that ask together
REQUEST_WINDOW_CHARS = 48
