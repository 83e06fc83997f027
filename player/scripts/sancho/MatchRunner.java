// Runs one match through ggp-base's own GameServer and prints one line:
//   RESULT game=G roles=R0,R1 completed=true|false goals=G0,G1 steps=N
//          errors=E0,E1 to=T0,T1 il=I0,I1 ce=C0,C1 seconds=S
// errors counts, per role, the steps (START included) in which the server
// recorded an error for that player: TO timeout, IL illegal or unreadable
// move (replaced by a random legal one), CE connection error.
// Usage: java MatchRunner GAME.kif START_CLOCK PLAY_CLOCK HOST:PORT... [--save FILE.json]
// (one HOST:PORT per role, in the game's role order).
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;

import org.ggp.base.server.GameServer;
import org.ggp.base.util.game.Game;
import org.ggp.base.util.match.Match;
import org.ggp.base.util.statemachine.Role;

public final class MatchRunner {
    public static void main(String[] args) throws Exception {
        List<String> rest = new ArrayList<>();
        String save = null;
        for (int i = 0; i < args.length; i++) {
            if (args[i].equals("--save")) save = args[++i]; else rest.add(args[i]);
        }
        if (rest.size() < 4) {
            System.err.println("usage: MatchRunner GAME.kif START_CLOCK PLAY_CLOCK HOST:PORT... [--save FILE.json]");
            System.exit(2);
        }
        Path kif = Paths.get(rest.get(0));
        String name = kif.getFileName().toString().replaceFirst("\\.kif$", "");
        int startClock = Integer.parseInt(rest.get(1));
        int playClock = Integer.parseInt(rest.get(2));
        String text = new String(Files.readAllBytes(kif), StandardCharsets.UTF_8);
        Game game = Game.createEphemeralGame(Game.preprocessRulesheet(text));
        List<Role> roles = Role.computeRoles(game.getRules());

        List<String> hosts = new ArrayList<>();
        List<Integer> ports = new ArrayList<>();
        List<String> names = new ArrayList<>();
        for (String hp : rest.subList(3, rest.size())) {
            int colon = hp.lastIndexOf(':');
            hosts.add(hp.substring(0, colon));
            ports.add(Integer.parseInt(hp.substring(colon + 1)));
            names.add("player" + names.size());
        }
        if (hosts.size() != roles.size()) {
            System.err.println("game " + name + " has " + roles.size() + " roles, got " + hosts.size() + " players");
            System.exit(2);
        }

        Match match = new Match(name + "." + System.currentTimeMillis(), -1, startClock, playClock, game, "");
        match.setPlayerNamesFromHost(names);
        long t0 = System.nanoTime();
        GameServer server = new GameServer(match, hosts, ports);
        if (save != null) server.startSavingToFilename(Paths.get(save).toAbsolutePath().toString());
        server.start();
        server.join();
        double seconds = (System.nanoTime() - t0) / 1e9;

        int n = roles.size();
        int[] errors = new int[n], to = new int[n], il = new int[n], ce = new int[n];
        for (List<String> step : match.getErrorHistory()) {
            for (int r = 0; r < n && r < step.size(); r++) {
                String e = step.get(r);
                if (e == null || e.isEmpty()) continue;
                errors[r]++;
                if (e.startsWith("TO")) to[r]++;
                else if (e.startsWith("IL")) il[r]++;
                else if (e.startsWith("CE")) ce[r]++;
            }
        }
        List<String> roleNames = new ArrayList<>();
        for (Role r : roles) roleNames.add(r.getName().toString());
        String goals = match.isCompleted() ? join(match.getGoalValues()) : String.join(",", java.util.Collections.nCopies(n, "-"));
        System.out.println("RESULT game=" + name
                + " roles=" + String.join(",", roleNames)
                + " completed=" + match.isCompleted()
                + " goals=" + goals
                + " steps=" + match.getMoveHistory().size()
                + " errors=" + join(errors) + " to=" + join(to) + " il=" + join(il) + " ce=" + join(ce)
                + String.format(" seconds=%.1f", seconds));
        System.exit(match.isCompleted() ? 0 : 1);
    }

    private static String join(List<Integer> xs) {
        StringBuilder b = new StringBuilder();
        for (Integer x : xs) b.append(b.length() == 0 ? "" : ",").append(x);
        return b.toString();
    }

    private static String join(int[] xs) {
        StringBuilder b = new StringBuilder();
        for (int x : xs) b.append(b.length() == 0 ? "" : ",").append(x);
        return b.toString();
    }
}
