"""The one bank of conversational scaffold every corpus generator draws from.

Why it exists: sessions in these corpora are mostly scaffold, user small talk and assistant
replies around the few turns that hold facts. The old scaffold was word-list padding ("Often
granite, zinnia, lupin skylark, Pimmoz.") and small per-vertical banks, which read like nobody's
chat and let a reader, or a retriever, tell scaffold from fact by its texture. This module is the
single shared source of natural chat text, written once and checked once.

Why it is so constrained: scaffold must never answer, hint at or contradict a question. So every
line is checked by :func:`problems` (at import and in ``tests/test_talk_banks.py``): plain ASCII
with simple punctuation; no capitalised word except a sentence's first word and "I" (capitalised
word pairs are how values look in these corpora); no digits or number words; none of the
:data:`FORBIDDEN_WORDS` the questions and the judge rely on; and no match for any polarity,
decline, denial or invalidation pattern the judge reads (:mod:`pytest_typedmemeval.judge.reading`).
Lines are also unique across banks, and no two lines of a bank share more than
:data:`SIMILARITY_LIMIT` of their content words, so a long haystack does not visibly loop.
Apostrophes count as quotes and are refused, so there are no contractions or possessives: the
tokenizer would split them into stray one-letter tokens ("s", "t") that vocabulary checks trip on.

Generators take the lines they can use with :func:`lines_without` (dropping lines that share a word
with their facts) and assert their own vocabulary against :func:`scaffold_words`.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from itertools import combinations

from ..judge.reading import (
    DECLINE_PATTERNS,
    DENIAL_PATTERNS,
    FIRED_PATTERNS,
    INVALIDATION_STATE_CUES,
    JUDGE_CUE_PATTERNS,
    NO_LONGER_EVENT_CUES,
    NOT_YET_PATTERNS,
    STILL_CUES,
)
from ..retrieval.tokenizer import raw_tokens, tokenize

# --- user small talk ---------------------------------------------------------------------------

USER_TALK_BY_TOPIC: dict[str, tuple[str, ...]] = {
    "weather": (
        "The wind was howling all night around the house. I lay awake listening to the gate rattle. By dawn the garden was covered in leaves and twigs.",
        "It finally brightened up this afternoon. I sat on the step with a mug of tea and soaked up the sun.",
        "We had hail out of nowhere on the walk to the shops! It bounced off the pavement like tiny marbles.",
        "Is it just me, or has the air felt really damp lately? My washing takes ages to dry on the rack.",
        "The fog this afternoon was so thick I could barely see the end of the road. It felt like something out of an old film.",
        "There was a sheet of frost on the windscreen at dawn. I scraped it off with the edge of a spatula.",
        "A proper thunderstorm rolled in over the hills. The dog hid under the table the whole time.",
        "It has been so muggy that I sleep with the window wide open. The birds wake me at dawn.",
        "I love the smell of wet pavement on a warm afternoon. It takes me straight to childhood summers.",
        "Do you enjoy a snowy scene as much as I do? The garden looked magical under a light dusting. I built a tiny snowman on the garden wall with pebbles for eyes.",
    ),
    "cooking": (
        "I made a big pot of lentil soup and it turned out really comforting. The kitchen smelled of cumin for ages.",
        "My attempt at homemade pasta was a glorious mess. There was flour all over the counter and somehow on the ceiling. My partner laughed so hard he had to sit down.",
        "I finally learned to fold dumplings properly! They looked almost professional, and the filling held together in the pan.",
        "Roasting vegetables with a drizzle of honey is my new favourite trick. Even the carrots disappeared quickly.",
        "Do you have a favourite thing to cook on a cold night? I tend to reach for a stew.",
        "The curry came out far spicier than I expected. My eyes were watering by the end of the bowl.",
        "I burned the onions while scrolling on my phone. The smoke alarm let everyone know about it.",
        "Baking bread is such a calming thing. Kneading the dough feels like therapy for the hands.",
        "I tried a new risotto recipe that needed constant stirring. My arm was aching but it was worth it.",
        "We had a little pancake competition in the kitchen. My nephew won with a perfect flip!",
    ),
    "reading": (
        "I am deep into a mystery novel full of twists. I read far too late into the night to find out the culprit.",
        "The poetry collection on my nightstand is slow going. I read a poem at bedtime and let it sink in.",
        "I love the hush of the library reading room. It feels like the whole world slows down in there.",
        "Have you ever finished a novel and felt a bit lost afterwards? That is where I am with this family saga.",
        "The memoir I am reading is so honest it makes me wince. The author writes with startling candour.",
        "I found a battered paperback at a charity stall with a handwritten dedication inside. It made me curious about the stranger behind the inscription.",
        "Reading on the train is the highlight of my commute. The carriage fades out and the story takes over.",
        "I tried an audio version of a classic novel. The narrator did wonderful voices for the characters.",
        "My reading pile is getting out of hand! I stack novels on the floor beside the bed.",
        "Science writing is my latest obsession. I am learning all sorts about octopuses and their clever arms.",
    ),
    "films": (
        "We watched a silly comedy on the sofa and laughed the whole way through. Sometimes you need something light.",
        "The cinema was nearly empty for the late showing. It felt like a private screening.",
        "I saw a documentary about deep sea creatures. Some of them looked like they came from another planet. There were glowing fish and a worm with feathery gills.",
        "Do you like a good thriller? The film I watched had me gripping the cushion throughout.",
        "I cried at the end of an animated film! Those talking animals got me completely.",
        "We had a horror film marathon on the sofa. I slept with the lamp on afterwards, I admit it.",
        "The soundtrack from that space film plays on a loop in my head. The swelling strings are so dramatic.",
        "I dozed off in the middle of a slow drama. I woke to the credits rolling and a cold cup of tea.",
        "My friends and I argued about the ending of a film for ages. I think the hero was dreaming the whole thing. We were shouting over the popcorn like it mattered enormously.",
        "Old black and white films have a charm of their own. The dialogue is so quick and witty.",
    ),
    "family visits": (
        "My parents came to stay and the house felt full and noisy in the nicest way. My mum reorganised my spice rack without asking. It took me a while to find anything.",
        "My cousins visited with their toddlers. The living room looks like a toy shop exploded.",
        "I drove to see my grandmother and she had baked a whole tray of scones. We ate them warm with jam.",
        "My brother popped round unannounced with a bag of oranges. We sat in the kitchen catching up for ages.",
        "Family gatherings wear me out a little. I love everyone, but I need a quiet sofa afterwards.",
        "My aunt brought her old photo albums to show us. Seeing my dad as a teenager was hilarious.",
        "We had a big family lunch in the garden! The kids ran around while the adults chatted in the shade.",
        "My sister slept over on the sofa bed. We talked late into the night like teenagers.",
        "How do you cope with a house full of relatives? I find the noise lovely but tiring.",
        "My niece showed me her drawings and they were wonderful. She has a real eye for colour.",
    ),
    "walks": (
        "I took a long walk along the canal towpath. The herons were out in force.",
        "We wandered through the woods and found a carpet of bluebells. It was breathtaking.",
        "A brisk walk around the park cleared my head nicely. I came home with rosy cheeks.",
        "I got a little lost on a footpath across the fields! A friendly farmer pointed me the right way.",
        "Walking by the sea in the wind is my favourite way to unwind. The waves were wild and loud.",
        "Does a walk count as exercise if it ends at a cafe? Asking for a friend!",
        "The hill behind the village is steeper than it looks. I was puffing by the top but the view was worth it. I sat on a bench at the summit and ate a squashed sandwich.",
        "I saw a fox trotting along the lane at dusk. It paused and stared at me for a moment.",
        "My walking boots are caked in mud from the riverside path. I left them on the doorstep to dry.",
        "I love an aimless stroll through the old part of town. The little lanes are full of surprises.",
    ),
    "commuting": (
        "The train was so packed that I stood squashed against the door the whole way. I could barely breathe.",
        "My bus driver greets everyone with a cheery hello. It makes the commute a bit brighter.",
        "I cycled to work and arrived soaked from a sudden shower. My colleagues found it very funny.",
        "Roadworks on the main road turned a short drive into a crawl. I listened to the radio and tried to stay calm. By the time I arrived I knew the weather forecast by heart.",
        "Is there anything more frustrating than a delayed train and a silent announcement board? I could have screamed.",
        "I have been walking to the station instead of driving. It wakes me up properly.",
        "The early train is so quiet and peaceful. Most people doze with their heads against the window.",
        "Someone on the tram was eating a very fragrant curry. The whole carriage smelled of it. Honestly, it made me hungry for lunch.",
        "I found a shortcut through the park on the way to work. It saves me a bit of traffic stress.",
        "My car made a strange rattling noise on the motorway. It turned out to be a loose hubcap, thankfully.",
    ),
    "sleep": (
        "I slept like a log last night! It felt wonderful to wake up properly rested.",
        "A barking dog woke me at dawn and I lay there wide awake. I read a chapter to pass the time. The dog seemed very pleased with himself.",
        "Do you have any tricks for falling asleep? My mind races the moment my head hits the pillow.",
        "I tried a lavender spray on my pillow. Whether it works or I was simply tired, I slept well.",
        "I had the strangest dream about swimming with whales. I woke up feeling oddly calm.",
        "Napping in the afternoon feels like such a luxury. I drifted off on the sofa with the cat.",
        "The new mattress feels like sleeping on a cloud. My aching shoulders feel much better for it.",
        "I went to bed early with a hot water bottle and a cup of cocoa. Pure bliss!",
        "The birds outside my window start singing in the dark. It is lovely, but I could use more rest.",
        "I woke at the crack of dawn and watched the sky slowly lighten. It was strangely peaceful.",
    ),
    "knitting": (
        "I am knitting a chunky scarf in a lovely deep green. The wool is so soft to work with.",
        "I missed a stitch somewhere and the pattern went wonky. Unpicking it was a real test of patience.",
        "My knitting group meets in a cosy cafe. We gossip more than we knit, honestly. The owner brings us biscuits and pretends she is part of the group.",
        "Do you think knitting is harder than crochet? I have been tempted to learn.",
        "I finished a tiny hat for a friend with a new baby. It is small enough to fit on an orange!",
        "Knitting in front of a film is my idea of a perfect night in. The clicking needles are so soothing.",
        "My cat thinks balls of yarn are toys made just for him. I found a tangled mess under the sofa.",
        "I am attempting a cable pattern and it makes my brain hurt. The result looks rather smart, though.",
        "There is something magical about turning string into a garment. I feel like a wizard with pointy sticks.",
        "I knitted a pot holder that came out shaped like a lopsided star. It makes me laugh.",
    ),
    "chess": (
        "I played a chess game online and lost in a handful of moves. It was humbling!",
        "My nephew beat me at chess and did a victory lap around the kitchen. I was a gracious loser, mostly.",
        "I am studying chess openings and my head is spinning. There are so many clever traps.",
        "Do you enjoy puzzles? I do a chess puzzle over coffee to wake my brain up.",
        "The chess club at the library is full of friendly characters. An elderly gentleman there is fiercely competitive. He hums loudly while he thinks and it is completely distracting.",
        "I finally won a long chess game by promoting a humble pawn. It felt like a small triumph.",
        "Chess makes me realise how impatient I am. I rush my moves and then regret them instantly.",
        "We set up a giant chessboard in the garden with plastic pieces. The kids loved dragging the knights around.",
        "I watched some top chess players online and their speed is astonishing. They think so many moves ahead.",
        "My brother and I have a chess rivalry going by post. It is slow, but the anticipation is lovely.",
    ),
    "friends": (
        "My friend got engaged on a mountain hike! She was beaming in the photos.",
        "An old school friend got in touch out of the blue. It was lovely to hear her voice.",
        "My friend has taken up rock climbing and is fearless about it. I get dizzy just watching the videos. She sends me photos from the top of cliffs with a big grin.",
        "A friend had a baby girl and the pictures are adorable. She has the tiniest fingers.",
        "My friend got a promotion and we celebrated with cake. She has worked so hard for it.",
        "Is it odd that I get nervous about seeing friends I have lost touch with? It feels silly.",
        "My friend is training for a marathon. Just hearing about her runs makes me tired!",
        "A friend from university sent me a lovely handwritten card out of nowhere. It made my afternoon.",
        "We had a dinner with friends where everyone brought a dish. The table was overflowing. Somebody made an enormous trifle and it vanished in a flash.",
        "My friend adopted a rescue greyhound. He is the gentlest, most elegant dog I have met.",
    ),
    "tidying": (
        "I tackled the cupboard under the stairs at last. I found a tennis racket buried under the coats.",
        "Sorting the wardrobe felt so satisfying. I folded everything neatly and it looks like a shop display.",
        "Do you find tidying relaxing or stressful? For me it depends entirely on my mood.",
        "I cleaned the windows and the whole room feels brighter. Amazing what a bit of elbow grease does.",
        "The kitchen drawers are finally organised! The spatulas and whisks have their own little homes.",
        "I vacuumed under the sofa and discovered a small treasure trove of lost socks and hair ties. How does so much end up under there?",
        "Spring cleaning took the whole afternoon. I am exhausted but the house smells of lemons.",
        "I sorted through a box of old letters and got rather sentimental. Some of them made me laugh out loud. My handwriting as a teenager was all loops and hearts.",
        "My desk was buried under paperwork. Clearing it felt like lifting a weight off my shoulders.",
        "Tidying with music on makes it much less of a chore. I danced around with the duster.",
    ),
    "music": (
        "I have been listening to a lot of jazz lately. It suits the rainy afternoons perfectly.",
        "I went to a small gig in a pub and the band was brilliant. The whole room was singing along. My voice was hoarse by the end of the night, but it was worth it.",
        "I dug out my old guitar and my fingers were so clumsy. It felt lovely to strum, though.",
        "Do you have a favourite kind of music for cooking? I like something upbeat to chop along to.",
        "A song on the radio brought a flood of memories. I felt like a teenager in my bedroom.",
        "The choir rehearsal was wonderful. Our harmonies finally came together in the last chorus.",
        "I heard a busker playing violin at the station. It was so beautiful I almost missed my train.",
        "My neighbour practises piano and I have grown fond of the scales drifting through the wall. It is like a free concert with my cup of tea.",
        "Singing in the car is my secret joy! I belt out ballads with the windows shut.",
        "I tried learning the ukulele and my fingertips are sore. The chords are trickier than they look.",
    ),
    "museum trip": (
        "I visited a natural history museum and stood under a huge whale skeleton. It made me feel very small. Some of the fossils were older than I can really imagine.",
        "The art gallery had an exhibition of tiny paintings. I needed a magnifying glass to see the detail.",
        "We wandered around a museum of old toys. It was a real trip down memory lane.",
        "Do you like museums? I could happily wander among ancient pottery all afternoon.",
        "The science museum had a room full of interactive exhibits. I had more fun than the children, honestly.",
        "I saw a painting that left me speechless. The colours glowed like they were lit from within.",
        "The museum cafe had the best lemon cake. I may have visited mainly for that.",
        "A guided tour of the castle was full of gruesome stories. Our guide was a brilliant storyteller.",
        "I love the quiet of a gallery on a rainy afternoon. People speak in whispers and move slowly.",
        "The sculpture garden was dotted with strange bronze figures. Some looked like they were about to walk off.",
    ),
    "neighbours": (
        "My neighbour brought round a plate of homemade biscuits. What a lovely surprise!",
        "The people upstairs are learning to tap dance, I think. The ceiling thumps in rhythm.",
        "Our street had a little party with bunting and long tables. I met people I had only waved at. Someone brought a guitar and we sang songs as the sun went down.",
        "My neighbour and I chat over the garden fence about anything and everything. It is a real tonic.",
        "The elderly man next door grows enormous tomatoes. He is very proud of them.",
        "A young family moved in across the road and their kids wave at me from the window. It is very sweet.",
        "Is it rude to knock and ask neighbours to turn their music down? I have been dithering about it.",
        "My neighbour helped me carry a wardrobe up the stairs. I was very grateful for the extra muscle.",
        "The cat from next door strolls into my kitchen like it owns the place. I find it rather charming.",
        "Our neighbours threw a barbecue and invited the whole street. The smell of grilled corn drifted everywhere.",
    ),
    "learning a language": (
        "I am learning a new language and the verb endings are driving me mad. There are so many of them!",
        "I managed a whole conversation with a shopkeeper in the language I am learning! I was grinning like a fool afterwards.",
        "Do you think it is easier to learn a language as a child? My nephew soaks up words effortlessly.",
        "Pronunciation is my weak spot. I practise rolling my tongue in the shower and sound ridiculous. My neighbour must think I am gargling with pebbles.",
        "The little owl on my language app is very persistent. It nags me like a strict teacher.",
        "I watched a film with subtitles in the language I am learning. I caught a few phrases and felt very clever.",
        "Learning vocabulary with flashcards works surprisingly well for me. I stick them on the fridge.",
        "There is a conversation group at the library for language learners. Everyone is patient and kind.",
        "I dreamt in my new language last night! It was mostly nonsense, but it felt like progress.",
        "Grammar tables make my eyes glaze over. I prefer learning phrases from songs.",
    ),
    "sport on television": (
        "The match on television was nail biting right to the final whistle. I was shouting at the screen.",
        "My team lost in extra time and I am gutted. It was such a close game. My dad rang to commiserate and we moaned together for ages.",
        "Do you follow any sport? I have been getting into tennis and the rallies are thrilling.",
        "We watched the rugby at the pub and the atmosphere was electric. Strangers were hugging at the end.",
        "The cycling race on television had gorgeous mountain scenery. I watched mostly for the views.",
        "A penalty shootout is pure torture to watch! I hid behind a cushion for most of it.",
        "The cricket went on all afternoon and I dozed through a good chunk of it. Very relaxing sport to nap to.",
        "My dad and I watched the boxing together and he commentated the whole time. He thinks he is an expert.",
        "The swimming championships on television were amazing. Those athletes move through the water like fish.",
        "Our local side won a thrilling match and the town is buzzing. People were honking their horns in celebration.",
    ),
    "gardening": (
        "The tomatoes in my greenhouse are finally ripening. The smell of the leaves is wonderful.",
        "Slugs have munched through my lettuces overnight. I am declaring war on them! I went out with a torch to find the culprits and felt like a detective.",
        "I potted up some herbs on the windowsill. The basil smells amazing.",
        "Do you find gardening relaxing? Pulling weeds is oddly satisfying for me.",
        "The sunflowers by the fence tower over me. The bees are loving them.",
        "I got my hands dirty planting bulbs all afternoon. It is a lovely act of faith in spring.",
        "A robin followed me around the vegetable patch hoping for worms. Such a cheeky little bird.",
        "The lawn is more moss than grass at this point. I have made peace with it. The blackbirds seem to like it this way, so that is a small comfort.",
        "Compost turns out to be surprisingly exciting. I am oddly proud of my heap.",
        "The apple tree blossomed beautifully this spring! The garden looks like a painting.",
    ),
}
"""User small talk by everyday topic, for user turns that hold no statement: two or three
sentences, some a question to the assistant, some exclamations, about nothing a question asks."""

USER_TALK: tuple[str, ...] = tuple(line for lines in USER_TALK_BY_TOPIC.values() for line in lines)
"""Every user small-talk line, flat (generators draw from this)."""

USER_TALK_TOPICS: tuple[str, ...] = tuple(topic for topic, lines in USER_TALK_BY_TOPIC.items() for _ in lines)
"""The topic of each :data:`USER_TALK` line, parallel to it."""

# --- assistant replies -------------------------------------------------------------------------

ASSISTANT_TALK: tuple[str, ...] = (
    # acknowledgements
    "That sounds lovely.",
    "Oh, how nice.",
    "What a treat.",
    "Glad to hear it.",
    "That made me smile.",
    "Sounds like a pleasant afternoon.",
    "Ah, that is a nice little moment.",
    "Thanks for sharing that.",
    "I can picture it.",
    "How wonderful!",
    "That must have been fun.",
    "Fair enough.",
    "Oh dear, what a nuisance.",
    "That is quite something.",
    "What a lovely thing to hear.",
    "Ha, I can imagine.",
    "It sounds really cosy.",
    "How exciting!",
    "Oh, that is a shame.",
    "Well done, that takes patience.",
    "That is charming.",
    "Sounds delightful.",
    "Nice, that must have felt satisfying.",
    "What a hoot!",
    "Oh, that sounds tiring.",
    "I am glad it went well.",
    "That is a sweet detail.",
    "Brilliant!",
    "How peaceful.",
    "Bravo!",
    "Ah, those small pleasures matter.",
    "That does sound frustrating.",
    "I hope it brightened things up.",
    "Such a cheery scene.",
    "That is impressive.",
    "That sounds like quite an adventure.",
    "How funny!",
    "Ah, the simple joys.",
    "Understood.",
    "Gotcha.",
    "Right you are.",
    "Sounds restful.",
    "That is wonderfully ordinary, in the best way.",
    "That sounds like a well earned rest.",
    "I love hearing about moments like that.",
    "What a nice way to unwind.",
    "That must have been a sight.",
    "Those little surprises are the best.",
    "That is the kind of thing that makes an afternoon.",
    "Ah, that sounds a bit stressful.",
    "Sounds like your hands were full.",
    "That is a lovely image.",
    "Oh, how annoying.",
    "I can see why that would make you smile.",
    "That is a real achievement.",
    "How heartwarming.",
    "Nice to hear things are ticking along.",
    "That is rewarding stuff.",
    "Sounds blissful.",
    "What a cheerful thing to share.",
    "Oh, I bet that was noisy!",
    "How very snug.",
    "That is a proper indulgence.",
    "Well, that is a story worth sharing.",
    "Thanks, I enjoyed hearing that.",
    "Sounds like a good laugh.",
    "I hope you got some rest out of it.",
    "That must have been quite the experience.",
    "Few things beat a cosy afternoon in.",
    "That sounds wholesome.",
    "Lovely, thanks for the glimpse.",
    "Oh, what a palaver.",
    "That is a nice bit of news.",
    "Goodness, what a scene.",
    "That sounds like a gentle pace of life.",
    "I am happy for you.",
    "Sounds memorable.",
    # brief friendly follow-ups
    "How did it come out?",
    "What was the best part?",
    "Was it enjoyable?",
    "How are you feeling about it?",
    "Was it crowded?",
    "What made you think of that?",
    "Did anything surprise you?",
    "Was the weather kind to you?",
    "Is that a regular thing?",
    "What caught your eye most?",
    "Were people in good spirits?",
    "Did it lift your mood?",
    "Is that something you enjoy doing?",
    "What is your favourite part of it?",
    "Did it take a while?",
    "Any highlights?",
    "Was it as fun as you hoped?",
    "How did everyone react?",
    "Was it tricky?",
    "Did anyone tag along?",
    "What drew you to it?",
    "Are you pleased with how it went?",
    "Did you manage to relax a bit?",
    "Is that a new thing for you?",
    "That sounds fun. Would you do it the same way another time?",
    "Was it a bit of an effort?",
    # small general tips
    "A warm drink and a blanket can do wonders on a grey afternoon.",
    "Stretching gently can help tired legs.",
    "A glass of water by the bed can be handy at night.",
    "Fresh air tends to clear the head nicely.",
    "Small breaks can make a long task feel lighter.",
    "A little music can turn a chore into something fun.",
    "Going easy on yourself helps with anything new.",
    "Jotting thoughts in a notebook can calm a busy mind.",
    "Some daylight early on can help with sleep.",
    "Practising little and often tends to beat marathon sessions.",
    "Warm socks make a surprising difference on chilly nights.",
    "Patience tends to reward fiddly crafts.",
    "A tidy corner can make a room feel calmer.",
    "Layers are handy in changeable weather.",
    "Slow breathing can help steady the nerves.",
    "Sharing a meal with others does the soul good.",
    "A change of scenery can refresh the mind.",
    "Laughter is great medicine.",
    "Gentle movement often eases stiffness.",
    "Short strolls can break up a long stretch at a desk.",
    "A quiet moment with tea can reset things.",
    "Doing a bit at a time makes big jobs manageable.",
    "Mistakes are part of learning.",
    "Sunlight and fresh air are a fine combination.",
    "It helps to celebrate small wins.",
    "A cosy routine can make bedtime easier.",
    "Good company makes almost anything better.",
    "That sounds nice. A comfy chair and a good light make reading a joy.",
)
"""Assistant replies for ordinary assistant turns: an acknowledgement, a short friendly follow-up
question or a general tip. None repeats, states or recalls anything about the user's own things,
names a thing to get or use, or refers to what either side wrote earlier."""

# --- topical mentions ----------------------------------------------------------------------------

MENTIONS: tuple[str, ...] = (
    "My sister asked me about {subject} over lunch.",
    "{subject} came up while I was nattering with my neighbour.",
    "I was reading an article that made me think of {subject}.",
    "A friend of mine brought up {subject} at the gym.",
    "I found myself thinking about {subject} on the walk home.",
    "My partner and I were chatting about {subject} over dinner.",
    "Somebody at work asked about {subject} out of the blue.",
    "I caught myself wondering about {subject} on the bus.",
    "{subject} crossed my mind while I was doing the washing up.",
    "My brother wanted to hear about {subject} during our catch up.",
    "There was a radio programme that got me thinking about {subject}.",
    "I had a long chat with my aunt about {subject}.",
    "My colleague and I got talking about {subject} over coffee.",
    "I was daydreaming about {subject} in the queue at the bakery.",
    "A podcast I listen to made me think of {subject}.",
    "My mum was curious about {subject} on our call.",
    "I got chatting about {subject} with a neighbour over the fence.",
    "{subject} popped into my head in the shower.",
    "My friend from the choir was asking about {subject}.",
    "I was chatting to my cousin about {subject} at the party.",
    "The topic of {subject} came up at the pub with friends.",
    "I saw something on the news that brought {subject} to mind.",
    "My nephew had questions about {subject} at the dinner table.",
    "I had {subject} on my mind during the drive home.",
    "We were swapping stories about {subject} at the pub quiz.",
    "Someone in the waiting room struck up a conversation about {subject}.",
    "My flatmate and I had a chat about {subject} in the kitchen.",
    "I was explaining {subject} to my dad over a cup of tea.",
    "A photo on my phone got me thinking about {subject}.",
    "My grandmother likes hearing all about {subject} on our walks.",
    "{subject} was the topic of conversation at lunch.",
    "My friend brought {subject} into the conversation at the cinema.",
    "I was musing about {subject} while folding laundry.",
    "It is funny how {subject} comes up in conversation.",
    "My sister and I had a good natter about {subject}.",
    "I brought up {subject} with a friend during a stroll in the park.",
    "{subject} came to mind while I was watering the plants.",
    "A neighbour caught me in the street to chat about {subject}.",
    "I ran into an old schoolfriend and we chatted about {subject}.",
    "My uncle loves a good conversation about {subject}.",
    "I was thinking about {subject} while waiting for the kettle.",
    "Something on the radio made me think about {subject}.",
    "My friends and I got onto the topic of {subject}.",
    "I wrote a little in my journal about {subject}.",
    "{subject} featured in a long conversation with my brother.",
    "My colleague was curious about {subject} at lunch.",
    "Oddly enough, I had a dream about {subject}.",
    "My partner teased me about {subject} over breakfast.",
    "A stranger at the bus stop struck up a chat about {subject}.",
    "{subject} got a brief airing at the family dinner.",
    "My friend sent me a funny message about {subject}.",
    "I was pondering {subject} on the way to the shops.",
    "Somehow {subject} came up while we were playing cards.",
    "My neighbour and I had a natter about {subject} across the hedge.",
    "I was chatting with the barista about {subject}.",
    "My daughter wanted to know about {subject} on the school run.",
    "{subject} was on my mind during my swim.",
    "My son had questions about {subject} at bedtime.",
    "I found an old photo that made me think of {subject}.",
    "My friend and I joked about {subject} on the phone.",
    "I read a short piece online that touched on {subject}.",
    "{subject} drifted into my thoughts during the film.",
    "I talked about {subject} with my mother over tea.",
    "A chat at the school gates turned to {subject}.",
    "My workmate seemed quite interested in {subject} at the coffee machine.",
    "I was reflecting on {subject} while out on my bike.",
)
"""User sentences that name a subject and say nothing about it: no value, state, change, time,
amount, decision, transaction, reminder or intention. They put a subject's words into sessions that
hold none of its facts, so a subject's name alone cannot mark the turn that answers. Exactly one
``{subject}`` each (a noun phrase or bare name); fill with :func:`render_mention`."""

ASSISTANT_MENTION_REPLIES: tuple[str, ...] = (
    "It sounds like that is on your mind a fair bit.",
    "Happy to talk it through whenever you like.",
    "Funny how these things crop up in conversation.",
    "It is nice to have people to chat with about things.",
    "That sounds like a good chat.",
    "Conversations like that can be fun.",
    "I am here if you want to think it over together.",
    "Sounds like a lively conversation.",
    "Those little exchanges can be surprisingly pleasant.",
    "That must have made for an interesting chat.",
    "Feel free to share more whenever it suits you.",
    "Chatting things over often helps.",
    "I am glad you have people around to natter with.",
    "That sounds like a pleasant moment.",
    "Let me know if you want to go into it further.",
    "Curious how the mind wanders like that.",
    "I am listening.",
    "It can be nice to mull things over out loud.",
    "Sounds like a relaxed catch up.",
    "Whatever is on your mind, I am happy to listen.",
    "That seems like a natural thing to chat about.",
    "Thoughts like that tend to pop up at odd moments.",
    "Good conversations can spark all sorts of ideas.",
    "I appreciate you bringing it up.",
    "Happy to hear more if there is more to share.",
    "It sounds like an easy topic to fall into.",
    "Small talk like that can brighten the afternoon.",
    "Sometimes a passing remark sets the mind going.",
    "I am all ears whenever you want to explore it.",
    "That is a fair thing to be thinking about.",
    "Sounds like a friendly exchange.",
    "Interesting how that came to mind.",
    "Ah, the way topics wander in a good chat.",
    "I am glad you had a chance to talk about it.",
)
"""Assistant replies after a :data:`MENTIONS` turn: they neither repeat the subject nor add
anything about it, so a mention and its reply carry the subject's name once and nothing else."""

STATEMENT_REPLIES: tuple[str, ...] = (
    "Noted, thanks for the update.",
    "Thank you for filling me in.",
    "Crystal clear.",
    "Got it, thanks for letting me know.",
    "Good to know.",
    "That is clear, thank you.",
    "All right, duly noted.",
    "Appreciate the detail.",
    "Thanks for sharing that with me.",
    "That helps me follow along.",
    "Okay, noted.",
    "Thanks for the heads up.",
    "I see. Thanks for walking me through it.",
    "Makes sense.",
    "Useful context, cheers.",
    "Thanks for bringing me up to speed.",
    "Sounds sensible.",
    "Right, I follow you.",
    "Sure thing.",
    "Thanks, that is helpful.",
    "Ah, okay. That fills in the picture.",
    "Thanks, that explains things.",
    "Understood, much obliged.",
    "Perfect, thank you kindly.",
    "Lovely, thanks for keeping me in the loop.",
)
"""Assistant replies right after a turn that states something (a statement piece): plain, neutral
acknowledgements. Emotive small-talk replies ("What a treat.") read oddly after a booking or a
purchase; these never repeat, confirm or evaluate what was stated, so they carry no content and
every session (gold or not) gets one after its statement turn."""


# --- the checker -------------------------------------------------------------------------------

FORBIDDEN_WORDS: frozenset[str] = frozenset(
    """
    still yet longer anymore never not no nothing none nobody don't doesn't didn't isn't wasn't
    can't cannot won't haven't hasn't remind reminder due valid validity expire expired lapse plan
    plans planned planning book booked booking recommend recommended suggest suggested suggestion
    said say says told tell mention mentioned added add list playlist order bought buy sold sell
    paid pay spent spend cost price lent lend borrowed borrow back returned return joined join
    cancelled cancel stopped dropped quit gave away rid kept keep stayed stuck settled decided
    picked chose current currently now today tonight tomorrow yesterday ago week weeks day days
    month months year years hour hours minute minutes morning evening weekend soon later earlier
    before after since until again always usually every each also dollars euros pounds money both
    who whom which when
    """.split()
) | frozenset({"went with", "me or you"})
"""Words the questions and the judge lean on (negation, persistence, scheduling, transactions,
reported speech, time, quantity): a scaffold line carrying one could read as an answer or mark a
turn for a retriever. Whole words, case-insensitive; the two phrases match as phrases."""

NUMBER_WORDS: frozenset[str] = frozenset(
    """
    zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen
    sixteen seventeen eighteen nineteen twenty thirty forty fifty sixty seventy eighty ninety
    hundred thousand million once twice thrice first second third fourth fifth sixth seventh
    eighth ninth tenth half dozen couple pair single double triple
    """.split()
)
"""Quantities in words: values in these corpora are counts and amounts, so scaffold has none."""

_ALLOWED_CHARS = re.compile(r"[^A-Za-z ,.!?]")
_BANNED = sorted(FORBIDDEN_WORDS | NUMBER_WORDS, key=len, reverse=True)
_FORBIDDEN = re.compile(r"\b(?:" + "|".join(map(re.escape, _BANNED)) + r")\b", re.IGNORECASE)
_PLAIN_CUES = (*NO_LONGER_EVENT_CUES, *STILL_CUES, *INVALIDATION_STATE_CUES)
_JUDGE_CUES = tuple(re.compile(p, re.IGNORECASE) for p in dict.fromkeys((
    *JUDGE_CUE_PATTERNS, *NOT_YET_PATTERNS, *FIRED_PATTERNS, *DECLINE_PATTERNS, *DENIAL_PATTERNS,
    *(rf"\b{re.escape(cue)}\b" for cue in _PLAIN_CUES))))
"""Every pattern the judge reads polarity, declines, denials and invalidation by (plain cues as
whole words): a scaffold line matching one could be read as an answer."""
_SENTENCE_END = re.compile(r"(?<=[.!?]) +")
PLACEHOLDER = "{subject}"
SIMILARITY_LIMIT = 0.6
"""Two lines of one bank may share at most this share of the smaller line's content words."""


def render_mention(template: str, subject: str) -> str:
    """``template`` with its subject put in; a subject opening a sentence gets a capital."""
    opening = subject[:1].upper() + subject[1:]
    text = re.sub(r"(^|[.!?] +)\{subject\}", lambda m: m.group(1) + opening, template)
    return text.replace(PLACEHOLDER, subject)


def problems(line: str) -> list[str]:
    """Why ``line`` cannot be scaffold text (empty when it can); a template is read with a neutral
    subject in place. Shared by the import-time assertion and the tests, so the rules live once."""
    found: list[str] = []
    if PLACEHOLDER in line:
        if line.count(PLACEHOLDER) != 1:
            found.append("more than one placeholder")
        line = render_mention(line, "the thing")
    if not line.isascii():
        found.append("non-ASCII text")
    if bad := sorted(set(_ALLOWED_CHARS.findall(line))):
        found.append(f"forbidden characters {bad}")
    if not line.endswith((".", "!", "?")):
        found.append("does not end with . ! or ?")
    if "  " in line or line != line.strip():
        found.append("stray spaces")
    for sentence in _SENTENCE_END.split(line):
        words = re.findall(r"[A-Za-z]+", sentence)
        if words and not words[0][0].isupper():
            found.append(f"sentence starts lower case: {sentence!r}")
        found += [f"capitalised word {w!r}" for w in words[1:] if w[0].isupper() and w != "I"]
    found += [f"forbidden word {w.lower()!r}" for w in _FORBIDDEN.findall(line)]
    found += [f"judge cue {p.pattern[:60]!r}" for p in _JUDGE_CUES if p.search(line.lower())]
    return found


def content_words(line: str) -> frozenset[str]:
    """BM25 tokens of a line (placeholder dropped): what the similarity rule compares."""
    return frozenset(tokenize(line.replace(PLACEHOLDER, " ")))


def bank_problems(banks: Mapping[str, Sequence[str]]) -> list[str]:
    """Every line's :func:`problems`, lines repeated across banks, and pairs of lines in one bank
    sharing more than :data:`SIMILARITY_LIMIT` of their content words (near copies read as a
    loop in a long haystack)."""
    found = [f"{name}: {line!r}: {p}"
             for name, bank in banks.items() for line in bank for p in problems(line)]
    seen = Counter(line for bank in banks.values() for line in bank)
    found += [f"line appears {n} times: {line!r}" for line, n in seen.items() if n > 1]
    for name, bank in banks.items():
        words = [content_words(line) for line in bank]
        for i, j in combinations(range(len(bank)), 2):
            shared = len(words[i] & words[j]) / max(1, min(len(words[i]), len(words[j])))
            if shared > SIMILARITY_LIMIT:
                found.append(f"{name}: too alike ({shared:.0%}): {bank[i]!r} / {bank[j]!r}")
    return found


BANKS: dict[str, tuple[str, ...]] = {
    "USER_TALK": USER_TALK, "ASSISTANT_TALK": ASSISTANT_TALK,
    "MENTIONS": MENTIONS, "ASSISTANT_MENTION_REPLIES": ASSISTANT_MENTION_REPLIES,
    "STATEMENT_REPLIES": STATEMENT_REPLIES,
}
_BANK_PROBLEMS = bank_problems(BANKS)
assert not _BANK_PROBLEMS, "scaffold banks break their rules:\n" + "\n".join(_BANK_PROBLEMS)

_SCAFFOLD_WORDS = frozenset(t for bank in BANKS.values() for line in bank
                            for t in raw_tokens(line.replace(PLACEHOLDER, " ")))


def scaffold_words() -> frozenset[str]:
    """Every lowercased token of every bank (placeholder excluded). A generator checks its invented
    values and fact words against this: a value token scaffold also uses would turn up in sessions
    that do not hold the fact, and a retriever could no longer tell the two apart."""
    return _SCAFFOLD_WORDS


def lines_without(bank: Sequence[str], words: Iterable[str]) -> tuple[str, ...]:
    """The lines of ``bank`` sharing no token with ``words``: a generator whose facts use a word the
    bank also uses (a "kitchen" fact beside kitchen small talk) drops those lines rather than let
    scaffold bring the fact's vocabulary into sessions that do not hold it."""
    banned = {w.lower() for w in words}
    return tuple(line for line in bank
                 if banned.isdisjoint(raw_tokens(line.replace(PLACEHOLDER, " "))))
