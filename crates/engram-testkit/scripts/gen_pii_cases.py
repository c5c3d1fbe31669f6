#!/usr/bin/env python3
"""Generate the labelled PII corpus (data/pii_cases.tsv): positives and look-alike
negatives in English and Chinese. Seeded; rerun to regenerate identically.
Columns: expected kinds (comma-separated, or "none"), the value that must disappear
(or "-"), the text."""
import random

rng = random.Random(20261130)

def luhn_complete(prefix, length):
    digits = [int(c) for c in prefix]
    while len(digits) < length - 1:
        digits.append(rng.randrange(10))
    for check in range(10):
        cand = digits + [check]
        s = 0
        for i, d in enumerate(reversed(cand)):
            if i % 2 == 1:
                d *= 2
                if d > 9: d -= 9
            s += d
        if s % 10 == 0:
            return "".join(map(str, cand))

def bad_luhn(prefix, length):
    good = luhn_complete(prefix, length)
    return good[:-1] + str((int(good[-1]) + 1) % 10)

W = [7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2]
def china_id(valid=True):
    area = rng.choice(["110105", "310101", "440305", "330106", "510107", "420102"])
    y = rng.randrange(1950, 2005); m = rng.randrange(1, 13); d = rng.randrange(1, 29)
    body = f"{area}{y:04d}{m:02d}{d:02d}{rng.randrange(1000):03d}"
    s = sum(int(c) * w for c, w in zip(body, W))
    check = "10X98765432"[s % 11]
    if not valid:
        check = "10X98765432"[(s + 3) % 11]
    return body + check

def iban(country, bban, valid=True):
    rearranged = bban + country + "00"
    num = int("".join(str(int(c, 36)) for c in rearranged))
    check = 98 - num % 97
    if not valid:
        check = (check + 7) % 97 + 1 if check != 97 else 2
    return f"{country}{check:02d}{bban}"

def group4(s):
    return " ".join(s[i:i+4] for i in range(0, len(s), 4))

cases = []
def add(kinds, value, text):
    cases.append((kinds, value, text))

names = ["Li Lei", "Han Meimei", "Alice", "Bob", "Carlos", "Priya", "Yuki", "Omar"]
domains = ["example.com", "mail.example.org", "corp.example.co.uk", "qq.com", "163.com", "gmail.com"]

# Emails
for i in range(18):
    user = rng.choice(["li.lei", "alice+tag", "bob_smith", "zhang.san", "dev-ops", "x9", "yuki.t"]) + str(rng.randrange(100))
    e = f"{user}@{rng.choice(domains)}"
    t = rng.choice([f"My email is {e}, write anytime.", f"请发邮件到{e}谢谢", f"Contact {rng.choice(names)} at <{e}>.", f"邮箱：{e}", f"cc {e} on the thread"])
    add("email", e, t)
# Mainland China mobiles
for i in range(16):
    n = "1" + rng.choice("3456789") + "".join(str(rng.randrange(10)) for _ in range(9))
    fmt = rng.choice([n, f"{n[:3]} {n[3:7]} {n[7:]}", f"{n[:3]}-{n[3:7]}-{n[7:]}", f"+86 {n}", f"+86-{n}"])
    t = rng.choice([f"我的手机号是{fmt}", f"电话{fmt}，晚上打", f"Call me on {fmt} after 6pm.", f"手机：{fmt}。"])
    add("phone", fmt, t)
# International / NANP / landlines
for fmt in ["+44 20 7946 0958", "+1 (415) 555-0132", "(212) 555-0199", "415-555-0173", "+49 30 901820", "+81 3-1234-5678",
            "+33 1 42 68 53 00", "+61 2 9374 4000", "010-62345678", "021-5088-1234".replace("5088-1234", "50881234"),
            "0755-86013388", "+852 2123 4567", "+65 6123 4567", "+91 98765 43210"]:
    t = rng.choice([f"Office line: {fmt}", f"座机 {fmt}", f"reach the desk at {fmt} tomorrow", f"phone {fmt}."])
    add("phone", fmt, t)
# Cards (valid Luhn)
for i in range(16):
    prefix, length = rng.choice([("4", 16), ("51", 16), ("55", 16), ("37", 15), ("6011", 16), ("62", 16), ("62", 19)])
    c = luhn_complete(prefix, length)
    fmt = rng.choice([c, group4(c), "-".join(c[i:i+4] for i in range(0, len(c), 4))])
    t = rng.choice([f"Charge card {fmt} please", f"我的银行卡号是{fmt}", f"card: {fmt}, exp 09/28", f"用这张卡 {fmt} 付款"])
    add("card", fmt, t)
# China IDs (valid)
for i in range(14):
    idn = china_id(True)
    t = rng.choice([f"身份证号：{idn}", f"我的身份证是{idn}，请核对", f"ID number {idn} on file", f"证件号码 {idn}"])
    add("china-id", idn, t)
# IBANs (valid)
for country, bban in [("GB", "WEST12345698765432"), ("DE", "370400440532013000"), ("FR", "20041010050500013M02606"), ("NL", "ABNA0417164300"),
                      ("ES", "21000418450200051332"), ("IT", "X0542811101000000123456"), ("CH", "0900000000000000000")[:0] or ("CH", "00762011623852957"),
                      ("BE", "539007547034"), ("PL", "109010140000071219812874"), ("SE", "50000000058398257466")]:
    ib = iban(country, bban, True)
    fmt = rng.choice([ib, group4(ib)])
    add("iban", fmt, rng.choice([f"Wire it to IBAN {fmt}.", f"收款账户 {fmt}", f"iban: {fmt}"]))
# IPs
for ip in ["192.168.1.23", "10.0.0.1", "172.16.254.3", "8.8.8.8", "203.0.113.77", "2001:db8:85a3::8a2e:370:7334",
           "fe80::1ff:fe23:4567:890a", "2001:0db8:0000:0000:0000:ff00:0042:8329", "100.64.12.9", "127.0.0.1"]:
    add("ip", ip, rng.choice([f"server at {ip} is down", f"我的IP是{ip}", f"ssh root@{ip}".replace("root@", "root at "), f"login from {ip}."]))
# API keys and tokens
keys = [
    "sk-" + "".join(rng.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789") for _ in range(48)),
    "sk-proj-" + "".join(rng.choice("abcdefghijklmnopqrstuvwxyz0123456789_-") for _ in range(40)),
    "sk-ant-api03-" + "".join(rng.choice("abcdefghijklmnopqrstuvwxyz0123456789") for _ in range(40)),
    "AKIA" + "".join(rng.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567") for _ in range(16)),
    "ghp_" + "".join(rng.choice("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789") for _ in range(36)),
    "github_pat_" + "".join(rng.choice("abcdefghijklmnopqrstuvwxyz0123456789_") for _ in range(60)),
    "xoxb-" + "-".join("".join(rng.choice("0123456789") for _ in range(12)) for _ in range(2)) + "-" + "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(24)),
    "AIza" + "".join(rng.choice("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") for _ in range(35)),
    "sk_live_" + "".join(rng.choice("abcdefghijklmnopqrstuvwxyz0123456789") for _ in range(24)),
    "glpat-" + "".join(rng.choice("abcdefghijklmnopqrstuvwxyz0123456789") for _ in range(20)),
    "hf_" + "".join(rng.choice("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ") for _ in range(34)),
    "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
]
for k in keys:
    add("api-key", k, rng.choice([f"here is my key {k} use it", f"OPENAI_API_KEY={k}", f"我的密钥 {k} 别外传".replace("密钥 ", "key "), f"token `{k}`"]))
add("api-key", "abcdefghijklmnopqrstuvwxyz012345", "Authorization: Bearer abcdefghijklmnopqrstuvwxyz012345")
# Stated secrets
for text, value in [("my password is hunter2!", "hunter2!"), ("The wifi password is Tr0ub4dor&3", "Tr0ub4dor&3"), ("password: correcthorse99", "correcthorse99"),
                    ("pwd=Sup3rS3cret", "Sup3rS3cret"), ("PIN is 4821", "4821"), ("my passcode was 908172", "908172"),
                    ("the password for the router is admin123", "admin123"), ('secret: "blue-falcon-42"', "blue-falcon-42"),
                    ("我的密码是abc12345", "abc12345"), ("支付密码：778899", "778899"), ("验证码是 493021", "493021"), ("口令为 Qwerty!9", "Qwerty!9"),
                    ("wifi 密码 zxcv7788", "zxcv7788"), ("api key: k-93jd-22md-1q", "k-93jd-22md-1q"), ("my password is sunshine.", "sunshine"),
                    ("access token = 7f9a8b7c6d", "7f9a8b7c6d")]:
    add("secret", value, text)
# Mixed (two kinds)
e = "wang.fang@example.com"; n = "13912345678"
add("email,phone", f"{e}|{n}", f"Reach Wang Fang at {e} or {n}.")
c = luhn_complete("4", 16)
add("card,phone", f"{c}|+1 (415) 555-0100", f"Card {c}, callback +1 (415) 555-0100")
add("china-id,phone", f"{china_id(True)}|", "")  # placeholder replaced below
cases.pop()
idn = china_id(True)
add("china-id,phone", f"{idn}|15811112222", f"姓名张三，身份证{idn}，手机15811112222")

# Negatives: look-alikes that must not be redacted
negatives = [
    "Order #2026113012345678 shipped", "订单号 20261130123456789012", "Tracking number 1Z999AA10123456784",
    "ISBN 978-3-16-148410-0 is on the shelf", "Version 1.2.3 released", "upgrade to v2.10.4.1 of the package",
    "The meeting is at 12:30:45 today", "Use std::vec::Vec in Rust", "call foo::bar() then", "Price is $1,299.99",
    "Temperature 36.6 degrees", "Room 1203, floor 12", "year 2026 was busy", "ratio 3:2:1", "score 98.5.",
    "the password is too short", "your password is incorrect", "密码是多少？", "忘记密码了怎么办", "What is my password?",
    "email me later", "user at example dot com", "not-an-email@", "@handle on twitter", "a@b",
    "the key is in the drawer", "sk-short", "my token is missing", "AKIA is a prefix", "call me maybe",
    "1234 5678 9012 3456 is not valid", "Invoice 4000 0000 0000 0001 total", "0000 0000 0000 0000",
    "ID 110105194912310021 is wrong", "编号 123456789012345678 无效", "GB82 WEST 1234 5698 7654 33 is a typo",
    "IBAN format looks like XX00 0000", "IP addresses like 999.1.1.1 are invalid", "octets 256.256.256.256",
    "between 10 and 20 people", "the 2nd of May", "in 3 weeks or 4", "a 15-minute call", "page 123456",
    "room 13800138", "数字 138001380001234", "序列号 13812345678901", "line 1.1.1", "call 555-0100",
    "HTTP 404 and 500 errors", "top-10 list 2026-11-30", "timestamp 1764480000000", "uuid 550e8400-e29b-41d4-a716-446655440000",
    "hash d41d8cd98f00b204e9800998ecf8427e", "commit a94a8fe5ccb19ba61c4c0873d391e987982fbbd3", "12 + 34 = 46",
    "我今年25岁", "电话坏了", "手机号码格式不对", "password reset link sent", "PIN code required", "secret sauce recipe",
    "The API key rotation is weekly", "Bearer of bad news", "eyJ is base64 for {\"", "Version 10.0.19045.3803",
    "coordinates 39.9042, 116.4074", "call +1", "+86", "fe80 is a prefix", "::1 is localhost", "a::b::c",
]
for t in negatives:
    add("none", "-", t)

with open("data/pii_cases.tsv", "w", encoding="utf-8") as f:
    f.write("# kinds\tvalue(s)\ttext — generated by scripts/gen_pii_cases.py (seed 20261130)\n")
    for kinds, value, text in cases:
        assert "\t" not in text and "\n" not in text
        f.write(f"{kinds}\t{value}\t{text}\n")
pos = sum(1 for c in cases if c[0] != "none")
print(f"{len(cases)} cases: {pos} positive, {len(cases) - pos} negative")
