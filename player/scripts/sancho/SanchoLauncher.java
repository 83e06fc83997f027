// Starts Sancho 1.61c (the 2014 GGP champion, repackaged in sancho.jar) as a
// GGP player on the port given as the first argument. Run by tournament.sh;
// needs sancho.jar and its dependencies on the class path (see there).
import org.repackage.sancho_v1_61c.org.ggp.base.player.GamePlayer;
import org.repackage.sancho_v1_61c.org.ggp.base.player.gamer.statemachine.sancho.Sancho;

public final class SanchoLauncher {
    public static void main(String[] args) throws Exception {
        int port = Integer.parseInt(args[0]);
        GamePlayer player = new GamePlayer(port, new Sancho());
        player.start();
        player.join();
    }
}
