/**
 * Passwords too common to accept (src/authn/password-policy.ts), lower case.
 *
 * Source: some 2,200 of the most common entries of public lists of leaked passwords, chiefly
 * SecLists' Passwords/Common-Credentials/10k-most-common.txt (github.com/danielmiessler/SecLists)
 * and the NCSC's 100,000 most breached passwords, written down as a selection rather than copied
 * whole. Each one of 4 to 10 letters also counts with the endings people most often add
 * (`monkey1`, `dragon123`, `summer!`), and so does every year from 1950 to 2030: some 10,000
 * passwords in all.
 */
const LISTED = `
123456 password 12345678 qwerty 123456789 12345 1234 111111 1234567 dragon 123123 baseball abc123 football
monkey letmein 696969 shadow master 666666 qwertyuiop 123321 mustang 1234567890 michael 654321 pussy
superman 1qaz2wsx 7777777 fuckyou 121212 000000 qazwsx 123qwe killer trustno1 jordan jennifer zxcvbnm asdfgh
hunter buster soccer harley batman andrew tigger sunshine iloveyou fuckme 2000 charlie robert thomas hockey
ranger daniel starwars klaster 112233 george asshole computer michelle jessica pepper 1111 zxcvbn 555555
11111111 131313 freedom 777777 pass fuck maggie 159753 aaaaaa ginger princess joshua cheese amanda summer
love ashley 6969 nicole chelsea biteme matthew access yankees 987654321 dallas austin thunder taylor matrix
william corvette hello martin heather secret fucker merlin diamond 1234qwer gfhjkm hammer silver 222222
88888888 anthony justin test bailey q1w2e3r4t5 patrick internet scooter orange 11111 golfer cookie richard
samantha bigdog guitar jackson whatever mickey chicken sparky snoopy maverick phoenix camaro sexy peanut
morgan welcome falcon cowboy ferrari samsung andrea smokey steelers joseph mercedes dakota arsenal eagles
melissa boomer booboo spider nascar monster tigers yellow xxxxxx 123123123 gateway marina diablo bulldog
qwer1234 compaq purple hardcore banana junior hannah 123654 porsche lakers iceman money cowboys 987654
london tennis 999999 ncc1701 coffee scooby 0000 miller boston q1w2e3r4 fuckoff brandon yamaha chester mother
forever johnny edward 333333 oliver redsox player nikita knight fender barney midnight please brandy chicago
badboy iwantu slayer rangers charles angel flower bigdaddy rabbit wizard bigdick jasper enter rachel chris
steven winner adidas victoria natasha 1q2w3e4r jasmine winter prince panties marine ghbdtn fishing cocacola
casper james 232323 raiders 888888 marlboro gandalf asdfasdf crystal 87654321 12344321 sexsex golden blowme
bigtits 8675309 panther lauren angela bitch spanky thx1138 angels madison winston shannon mike toyota
blowjob jordan23 canada sophie apples dick tiger razz 123abc pokemon qazxsw 55555 qwaszx muffin johnson
murphy cooper jonathan liverpoo david danielle 159357 jackie 1990 123456a 789456 turtle horny abcd1234
scorpion qazwsxedc 101010 butter carlos password1 dennis slipknot qwerty123 booger asdf 1991 black startrek
12341234 cameron newyork rainbow nathan john 1992 rocket viking redskins butthead asdfghjkl 1212 sierra
peaches gemini doctor wilson sandra helpme qwertyui victor florida dolphin pookie captain tucker blue
liverpool theman bandit dolphins maddog packers jaguar lovers nicholas united tiffany maxwell zzzzzz nirvana
jeremy suckit stupid porn monica elephant giants jackass hotdog rosebud success debbie mountain 444444
xxxxxxxx warrior 1q2w3e4r5t q1w2e3 123456q albert metallic lucky azerty 7777 shithead alex bond007 alexis
1111111 samson 5150 willie scorpio bonnie gators benjamin voodoo driver dexter 2112 jason calvin freddy
212121 creative 12345a sydney rush2112 1989 asdfghjk red123 bubba 4815162342 passw0rd trouble gunner happy
fucking gordon legend jessie stella qwert eminem arthur apple nissan bullshit bear america 1qazxsw2 nothing
parker 4444 rebecca qweqwe garfield 01012011 beavis 69696969 jack asdasd december 2222 102030 252525
11223344 magic apollo skippy 315475 girls kitten golf copper braves shelby godzilla beaver fred tomcat
august buddy airborne 1993 1988 lifehack qqqqqq brooklyn animal platinum phantom online xavier darkness
blink182 power fish green 789456123 voyager police travis 12qwaszx heaven snowball lover abcdef 00000
pakistan 007007 walter playboy blazer cricket sniper hooters donkey willow loveme saturn therock redwings
bigboy pumpkin trinity williams tits nintendo digital destiny topgun runner marvin guinness chance bubbles
testing fire november minecraft asdf1234 lasvegas sergey broncos cartman private celtic birdie little cassie
babygirl donald beatles 1313 dickhead family 12121212 school louise gabriel eclipse fluffy 147258369 lol123
explorer beer nelson flyers spencer scott lovely gibson doggie cherry andrey snickers buffalo pantera
metallica member carter qwertyu peter alexande steve bronco paradise goober 5555 samuel montana mexico
dreams michigan cock carolina yankee friends magnum surfer poopoo maximus genius cool vampire lacrosse
asd123 aaaa christin kimberly speedy sharon carmen 111222 kristina sammy racing ou812 sabrina horses
0987654321 qwerty1 pimpin baby stalker enigma 147147 star poohbear boobies 147258 simple bollocks 12345q
marcus brian 1987 qweasdzxc drowssap hahaha caroline barbara dave viper drummer action einstein bitches
genesis hello1 scotty friend forest 010203 hotrod google vanessa spitfire badger maryjane friday alaska
1232323q tester jester jake champion billy 147852 rock hawaii badass chevy 420420 walker stephen eagle1 bill
1986 october gregory svetlana pamela 1984 music shorty westside stanley diesel courtney 242424 kevin porno
hitman boobs mark 12345qwert reddog frank qwe123 popcorn patricia aaaaaaaa 1969 teresa mozart buddha
anderson paul melanie abcdefg security lucky1 lizard denise 3333 a12345 123789 ruslan stargate simpsons
scarface eagle 123456789a thumper olivia naruto 1234554321 general cherokee a123456 vincent usuckballz1
spooky qweasd cumshot free frankie douglas death 1980 loveyou kitty kelly veronica suzuki semperfi penguin
mercury liberty spirit scotland natalie marley vikings system sucker king allison marshall 1979 098765
qwerty12 hummer adrian 1985 vfhbyf sandman rocky leslie antonio 98765432 4321 softball passion mnbvcxz
bastard passport horney rascal howard franklin bigred assman alexander homer redrum jupiter claudia 55555555
141414 zaq12wsx shit patches cunt raider infinity andre 54321 galore college russia kawasaki bishop 77777777
vladimir money1 freeuser wildcats francis disney budlight brittany 1994 00000000 sweet oksana honda domino
bulldogs brutus swordfis norman monday jimmy ironman ford fantasy 9999 7654321 hentai duncan cougar 1977
jeffrey house dancer brooke timothy super marines justice digger connor patriots karina 202020 molly everton
tinker alicia rasdzv3 poop pearljam stinky naughty colorado 123123a water test123 ncc1701d motorola ireland
asdfg slut matt houston boogie zombie accord vision bradley reggie kermit froggy ducati avalon 6666 9379992
sarah saints logitech chopper 852456 simpson madonna juventus claire 159951 zachary yfnfif wolverin warcraft
hello123 extreme penis peekaboo fireman eugene brenda 123654789 russell panthers georgia smith skyline jesus
elizabet spiderma smooth pirate empire bullet 8888 virginia valentin psycho predator arizona 134679 mitchell
alyssa vegeta titanic christ goblue fylhtq wolf mmmmmm kirill indian hiphop baxter awesome people danger
roland mookie 741852963 1111111111 dreamer bambam arnold 1981 skipper serega rolltide elvis changeme simon
1q2w3e bobby ruby spring sexygirl sparky1 princess1 iloveyou1 iloveu babygirl1 lovely1 monkey1 michael1
jessica1 soccer1 charlie1 football1 baseball1 sunshine1 superman1 batman1 dragon1 shadow1 master1 killer1
hunter1 jordan1 ashley1 daniel1 thomas1 robert1 hockey1 ranger1 tigger1 buster1 harley1 andrew1 summer1
chelsea1 matthew1 yankees1 anthony1 justin1 bailey1 pepper1 ginger1 cookie1 peanut1 scooter1 orange1 compaq1
chicken1 martin1 william1 abc1234 abcd123 abc12345 a1b2c3 a1b2c3d4 aa123456 qwe123456 zxc123 zxcvbn123
asd123456 password12 password123 password1234 passw0rd1 p@ssw0rd p@ssword pa55word pa55w0rd passwort
motdepasse contrasena senha parola wachtwoord salasana haslo heslo jelszo lozinka пароль qwertz qwertzuiop
azertyuiop 123qweasd 1qaz2wsx3edc qazwsx123 zaq1xsw2 1qazxsw23edc !qaz2wsx q1w2e3r4t5y6 1q2w3e4r5t6y
1q2w3e4r5t6y7u8i9o0p qwertyuiop123 1234qwerasdf qwerasdf asdfzxcv zxcvasdf poiuytrewq lkjhgfdsa mnbvcxz1
9876543210 987654321a 123456789q 1234567890q 12345678910 123456789101112 135792468 13579 2468 24680
1357924680 112233445566 123456654321 123321123 321321 456456 789789 147741 159159 258258 369369 741741
852852 963963 010101 020202 030303 050505 080808 090909 111000 110110 100100 101101 123000 1234512345
1122334455 1029384756 1a2b3c4d 1a2b3c 12qwas 123asd 123zxc 123ewq 321ewq ewq321 qwe321 asdqwe123 qweasd123
qwe123qwe 123qwe123 1234abcd abcd12345 abcdefgh abcdefg1 abcdef123 abcde12345 aaaaaaa bbbbbb cccccc dddddd
eeeeee ffffff gggggg hhhhhh iiiiii jjjjjj kkkkkk llllll nnnnnn oooooo pppppp rrrrrr ssssss tttttt uuuuuu
vvvvvv wwwwww yyyyyy 2222222 22222222 3333333 33333333 4444444 44444444 5555555 6666666 66666666 7777777777
8888888 9999999 99999999 0000000 0000000000 12345678900 asdfghjkl1 qwertyuiop1 letmein1 letmein123 welcome1
welcome123 welcome01 hello12 hello1234 admin admin1 admin123 admin1234 administrator root toor root123 guest
guest123 user user123 login login123 default changeme1 changeme123 secret1 secret123 test1 test1234 testtest
demo demo123 temp temp123 temppass pass123 pass1234 mypassword mypass passpass password! password1!
password01 password2 password3 password7 password9 password99 password11 password13 password69 password88
passw0rd! p4ssw0rd p455w0rd pa$$word pa$$w0rd iloveyou! iloveyou2 iloveyou12 iloveyou123 loveyou1 loveyou2
lovelove loveme1 lover1 mylove mylove1 love123 love1234 ilovegod ilovejesus jesus1 jesuschrist god123
blessed blessing faith hope grace angel1 angel123 angelina angelica precious purple1 pink pinky pinkpink
butterfly butterfly1 flower1 flowers rose roses sunflower daisy lily tulip cherry1 strawberry chocolate
chocolate1 candy cupcake cookies sugar honey honey1 sweetie sweetheart sweety cutie cutie1 cute1 kisses hugs
hugsandkisses babyboy baby123 babydoll princesa princesse princess123 prince1 queen king1 kingkong superstar
star123 stars moon moonlight sun sunny sunday sunrise sunset skyblue sky rainbow1 snow snowflake snowman
winter1 summer123 spring1 autumn fall holiday vacation christmas easter halloween january february march
april may june july september monday1 tuesday wednesday thursday friday1 saturday sunday1 tomorrow today
forever1 always never nothing1 something everything whatever1 nobody somebody anything hallo hallo123 ciao
bonjour hola salut hello12345 hi123 hey123 yes123 ok123 okay okok aaa111 abc111 qaz123 wsx123 edc123 asdf123
zxcv1234 qwer123 asdf12345 fdsa jkl123 hjkl uiop zxcvb asdfghjkl123 qwertyuiop12 1qa2ws3ed 1q2w3e4 1q2w3e4r5
q2w3e4r5 qw12er34 12qw34er qwer4321 4321rewq 2wsx3edc 3edc4rfv zaqxsw xswzaq cde3vfr4 1qaz 2wsx 3edc 4rfv
5tgb 6yhn 7ujm qazwsxedcrfv qweasdzxc123 qwertyasdfgh qwertyasdf asdfqwer asdfjkl asdfjkl; !@#$%^ !@#$%^&*
!@#$% 1q2w3e!@# qwe!@# 1qaz@wsx 1qaz!qaz ninja samurai warrior1 soldier army navy marine1 airforce sniper1
ranger2 hunter2 hunter12 hunting fishing1 fisher camping outdoor nature forest1 tree river ocean beach
island paradise1 tropical surfing skate skater skateboard snowboard skiing biking bicycle running runner1
soccer12 soccer10 soccer11 football2 football12 basketball basket baseball2 volleyball softball1 tennis1
golf1 golfing boxing karate judo wrestling rugby cricket1 hockey12 nhl nba nfl mlb fifa espn sports cowboys1
steelers1 eagles1 patriots1 packers1 giants1 jets raiders1 broncos1 chargers bears bears1 lions vikings1
saints1 falcons panthers1 ravens bengals browns texans colts titans jaguars dolphins1 bills chiefs seahawks
49ers niners redskins1 rams cardinals yankees2 redsox1 mets dodgers cubs whitesox astros braves1 phillies
pirates reds tigers1 twins royals mariners angels1 lakers1 celtics bulls knicks heat spurs rockets warriors
arsenal1 chelsea12 liverpool1 manutd manchester manchesterunited united1 barcelona realmadrid madrid
juventus1 milan inter acmilan bayern dortmund ajax celtic1 rangers1 everton1 tottenham spurs1 newcastle
leeds westham villa porto benfica sporting galatasaray fenerbahce besiktas flamengo corinthians boca river1
santos mercedes1 bmw audi porsche1 ferrari2 lamborghini ferrari12 mustang1 corvette1 camaro1 chevy1
chevrolet ford1 dodge jeep toyota1 honda1 nissan1 mazda subaru mitsubishi hyundai kia volvo saab volkswagen
golfgti jetta civic accord1 impala yamaha1 suzuki1 kawasaki1 ducati1 bmw123 audi123 mustang123 ferrari123
pokemon1 pikachu naruto1 sasuke goku vegeta1 dragonball dbz onepiece luffy zelda link mario luigi sonic
yoshi kirby metroid halo halo123 xbox xbox360 playstation ps3 ps4 nintendo1 gamecube wii minecraft1 roblox
fortnite callofduty cod warcraft1 starcraft diablo2 counterstrike gamer gaming gamer123 player1 sims
batman123 superman123 spiderman spiderman1 ironman1 hulk thor captain1 wolverine xmen avengers marvel
dccomics joker harleyquinn deadpool starwars1 jedi yoda skywalker darthvader vader chewbacca r2d2 c3po
startrek1 spock kirk enterprise ncc1701e gandalf1 frodo legolas aragorn hobbit matrix1 neo trinity1 morpheus
terminator predator1 alien aliens rambo rocky1 scarface1 godfather corleone tonymontana mickey1 mickeymouse
minnie donald1 goofy pluto disney1 simba nemo dory elmo bigbird snoopy1 garfield1 tweety bugsbunny scooby1
scoobydoo shrek barbie kenny cartman1 southpark homer1 bart simpsons1 futurama bender spongebob patrick1
squidward tigger2 winnie poohbear1 pooh eeyore dog dogs doggy doggie1 puppy puppy1 puppies cat cats kitty1
kitten1 kittycat pussycat meow tiger1 tigers2 lion lion1 lionking bear1 bears2 wolf1 wolves fox foxy eagle2
falcon1 hawk raven crow owl dolphin1 shark whale turtle1 monkey12 monkey123 donkey1 horse horses1 pony
unicorn dragon12 dragon123 dragons snake cobra python viper1 scorpion1 spider1 rabbit1 bunny bunny1 hamster
mouse rat pig piggy cow bull bulldog1 buddy1 max max123 maxwell1 lucky123 rocky123 sam sammy1 charlie123
bella molly1 daisy1 lucy bailey12 buster12 shadow12 shadow123 coco cookie12 oreo computer1 internet1 google1
yahoo hotmail gmail facebook twitter instagram myspace youtube netflix amazon apple1 iphone ipad android
samsung1 nokia motorola1 sony dell hp lenovo asus acer toshiba microsoft windows windows7 windows10 linux
ubuntu unix mac macintosh laptop desktop keyboard mouse1 monitor printer server network hacker hacking
hacked cyber security1 firewall virus matrix123 code coder programmer developer java javascript php python1
ruby1 perl oracle mysql sql database data money123 money12 cash dollar dollars rich million millionaire
billion gold golden1 silver1 diamond1 diamonds platinum1 ruby2 emerald jade crystal1 pearl treasure lucky7
lucky13 luck fortune winner1 winning champion1 victory success1 boss boss123 bigboss chief leader master12
master123 masterkey music1 musica rock1 rocknroll rockstar metal metallica1 slayer1 megadeth ironmaiden acdc
ac/dc nirvana1 kurt cobain pearljam1 eminem1 tupac 2pac biggie jayz kanye drake beyonce rihanna madonna1
britney shakira elvis1 beatles1 queen1 pinkfloyd ledzeppelin zeppelin guitar1 bass drums drummer1 piano
violin singer dance dancer1 dancing hiphop1 rap rapper jazz blues country school1 college1 student teacher
university class classof2000 graduate education science math english history biology chemistry physics
doctor1 nurse police1 fireman1 lawyer pilot engineer soldier1 captain2 sailor newyork1 london1 paris
paris123 berlin moscow tokyo china japan india russia1 usa america1 canada1 mexico1 brazil brasil argentina
colombia peru chile spain italia italy france germany deutschland england britain ireland1 scotland1 wales
australia sydney1 melbourne texas texas1 california florida1 chicago1 boston1 detroit miami vegas hawaii1
alaska1 dallas1 houston1 seattle denver atlanta phoenix1 portland philly brooklyn1 bronx michael12
michael123 jennifer1 jessica12 ashley12 amanda1 nicole1 melissa1 michelle1 elizabeth elizabeth1 stephanie
heather1 samantha1 sarah1 rachel1 rebecca1 laura lauren1 emily emma olivia1 sophia isabella mia abigail
madison1 chloe grace1 hannah1 natalie1 victoria1 alexis1 taylor1 brittany1 courtney1 danielle1 kimberly1
megan amber crystal12 tiffany1 vanessa1 monica1 jasmine1 maria maria1 mariana marie anna anna123 anastasia
natasha1 tatiana olga irina elena ekaterina svetlana1 julia julie jenny jenna kate katie kelly1 karen linda
lisa mary nancy susan patricia1 barbara1 sandra1 donna carol ruth sharon1 helen betty dorothy margaret
james1 john1 robert12 david1 richard1 charles1 joseph1 thomas12 christopher chris1 christian daniel12
daniel123 matthew12 anthony12 mark1 donald12 steven1 paul1 andrew12 joshua1 kenneth kevin1 brian1 george1
edward1 ronald timothy1 jason1 jeffrey1 ryan jacob gary nicholas1 eric jonathan1 stephen1 larry justin12
scott1 brandon1 frank1 benjamin1 gregory1 samuel1 raymond patrick12 alexander1 jack1 dennis1 jerry tyler
aaron jose henry adam douglas1 nathan1 peter1 zachary1 kyle walter1 harold jeremy1 ethan carl keith roger
gerald christian1 terry sean arthur1 austin1 noah lawrence jesse joe bryan billy1 jordan12 albert1 dylan
bruce willie1 gabriel1 alan juan logan wayne ralph roy eugene1 randy vincent1 russell1 louis philip bobby1
johnny1 bradley1 alex123 alex12 alex1 max12 mike1 mike123 tom tommy tommy1 danny jimmy1 johnny123 billy123
bob bob123 bobby123
`;

const ENDINGS = ['1', '12', '123', '1234', '!', '1!'];
const YEARS = { first: 1950, last: 2030 };

let common: ReadonlySet<string> | undefined;

/** The set, built at its first use. */
export function commonPasswords(): ReadonlySet<string> {
  if (common) return common;
  const listed = LISTED.split(/\s+/).filter(Boolean);
  const set = new Set(listed);
  for (const word of listed) {
    if (/^[a-z]{4,10}$/.test(word)) for (const ending of ENDINGS) set.add(word + ending);
  }
  for (let year = YEARS.first; year <= YEARS.last; year++) set.add(String(year));
  common = set;
  return set;
}
