"""Profile slots about one's work, read by patterns (no LLM), beside "I work as a nurse" and "I
work at Google" (persona_patterns): the way most people say it, "I'm a nurse", "I'm a software
engineer at Google", "I got a job at Spotify", "I started a new job as a barista", "I'm retired".
"""

from __future__ import annotations

import re

# What a job is called, as the last word (or words) of "I'm a ...": "I'm a nurse", "I'm a
# primary school teacher", "I am an electrical engineer". A closed list: "I'm a big fan of
# jazz", "I'm a bit tired", "I'm a mess" name no work. Words often said of oneself without
# being one's job are left out ("cook", "writer", "runner", "mother").
_JOBS = (
    "accountant actor actress actuary administrator agent analyst anaesthetist anesthesiologist "
    "animator archaeologist architect archivist artist astronomer attorney auditor baker "
    "banker barber barista bartender beautician biologist bookkeeper bricklayer builder "
    "butcher carer caregiver carpenter cashier caretaker chef chemist "
    "chiropractor cleaner clerk coach commentator composer conductor consultant contractor "
    "counsellor counselor courier curator dancer dentist designer detective developer "
    "dietitian dietician diplomat director doctor economist editor electrician engineer "
    "entrepreneur estimator farmer firefighter fireman florist gardener geologist "
    "hairdresser historian hygienist illustrator inspector instructor "
    "interpreter investigator janitor jeweller jeweler journalist judge labourer laborer "
    "lawyer lecturer librarian lifeguard linguist locksmith machinist manager marketer "
    "mathematician mechanic midwife miner musician nanny negotiator neurologist nurse "
    "officer optician optometrist paediatrician pediatrician painter paralegal paramedic "
    "pharmacist photographer physician physicist physio physiotherapist pilot plasterer "
    "plumber podcaster policeman policewoman politician porter postman "
    "postwoman potter producer professor programmer psychiatrist psychologist publisher "
    "radiographer radiologist realtor receptionist recruiter reporter researcher "
    "roofer sailor salesman saleswoman salesperson scientist screenwriter secretary "
    "senator sheriff shopkeeper singer soldier solicitor songwriter "
    "statistician steward stewardess stockbroker student supervisor surgeon surveyor tailor "
    "teacher technician therapist tiler translator trainer tutor underwriter "
    "vet veterinarian waiter waitress welder zoologist"
)
# Jobs of more than one word, one a line.
_JOB_PHRASES = """
graphic designer
police officer
social worker
software engineer
data scientist
web developer
product manager
project manager
civil servant
flight attendant
estate agent
real estate agent
travel agent
nurse practitioner
dental nurse
teaching assistant
stay-at-home mum
stay-at-home mom
stay-at-home dad
stay-at-home parent
PhD student
grad student
graduate student
medical student
law student
"""


def _alternatives(words: str, phrases: str) -> str:
    """The jobs as a regex alternation, longest first (so that "social worker" is taken whole)."""
    names = {*words.split(), *filter(None, phrases.splitlines())}
    # ties by name: the same pattern in every process (a set's order is not)
    return "|".join(re.escape(name) for name in sorted(names, key=lambda n: (-len(n), n)))


_JOB = _alternatives(_JOBS, _JOB_PHRASES)
# Words before the job that judge, or say a pastime, rather than say what work it is: "I'm a
# terrible accountant" is a joke about oneself, "I'm an amateur photographer" a hobby.
_JUDGING = (
    "good bad great terrible awful lousy poor amazing brilliant big little huge total real "
    "proper bit lot kind sort natural born wannabe frustrated failed aspiring would-be budding "
    "future hopeless decent excellent fantastic typical complete amateur keen avid hobby "
    "weekend enthusiastic casual self-taught first-time"
)
_JUDGING_WORDS = "|".join(_JUDGING.split())
# "I'm a nurse", "I am an electrical engineer", "I'm now a senior software engineer at Google",
# "I'm a retired teacher" (kept as it is said); up to two words before the job. Not "I'm a
# dancer at heart".
_IM_A = re.compile(
    r"(?i:\bi(?:['’]m| am) (?:now |currently |also |actually |still |officially )?an? )"
    rf"((?:(?!(?i:{_JUDGING_WORDS})\b)[\w-]+ ){{0,2}}?(?i:{_JOB}))"
    r"(?=[,.;!?)]| [-–—]| (?:at|in|for|and|with|from|who|but|so|by|on|of|here|there|now|too|"
    r"myself|as well)\b|$)"
    # who one is rather than the work: "I'm a dancer at heart", "a teacher by nature"
    r"(?! (?i:at heart|by nature|in spirit|in my (?:dreams|heart|head|spare time|free time))\b)"
)
# "I got a job as a barista", "I've just started a new job as a nurse", "I started working as
# a courier". The job as said, up to where the clause ends (as "I work as ...").
# "I got a", "I've just started my new", "I landed my first": the start of a new job's sentence.
_NEW_JOB = (
    r"\bi(?:['’]ve| have)? (?:just |recently |finally )?(?:got|landed|started|accepted|took|"
    r"found|began)(?: a| my)?(?: new| first)? "
)
_JOB_AS = re.compile(
    rf"(?i:{_NEW_JOB}(?:job|work|working|position|role) as (?:an? )?)"
    r"([^,.;!?]+?)(?= in [A-Z]| at [A-Z]| for [A-Z]| with [A-Z]|[,.;!?]|$)"
)
_NOT_WORKING = re.compile(
    r"(?i:\bi(?:['’]m| am) (?:now |currently |officially |happily )?"
    r"(retired|unemployed|self-employed|between jobs|out of work)\b(?!-))"
    # "I retired last year", "I've just retired from teaching"; not "I retired the old laptop"
    r"|(?i:\bi(?:['’]ve| have)? (?:just |finally |recently )?(retired)"
    r"(?=[,.;!?]|$| (?:last|this|in|at|early|from|after|recently|years?|a (?:few|couple|year|month|"
    r"while))\b))"
)

# Where one works, said with the job or the new job: "I'm a nurse at St Mary's", "I got a job
# at Spotify", "I've started working at the BBC", "I now work for Siemens". The place is taken
# as persona_patterns takes places (its capitalised run).
_AT = r" (?:at|for|with) (?:the )?"
EMPLOYER_LEAD_INS = (
    rf"(?i:\bi(?:['’]m| am) (?:now |currently |also |still )?an? )(?:[\w-]+ ){{0,2}}?"
    rf"(?i:{_JOB})(?i:{_AT})",
    rf"(?i:{_NEW_JOB}(?:job|position|role)(?: as [\w -]+?)?{_AT})",
    rf"(?i:\bi(?:['’]ve| have)? (?:just |recently )?started (?:working|work){_AT})",
    rf"(?i:\bi (?:now|still|currently) work{_AT})",
)


def occupation(sentence: str) -> list[str]:
    """The jobs `sentence` says are one's own ("I'm a nurse" -> "nurse"; "I'm retired" ->
    "retired"), as said."""
    found = [match.group(1) for match in _IM_A.finditer(sentence)]
    found += [match.group(1).strip() for match in _JOB_AS.finditer(sentence)]
    found += [
        (match.group(1) or match.group(2)).lower() for match in _NOT_WORKING.finditer(sentence)
    ]
    return found
